// The Graphviz dump behind `ablate graph --dot`: the graph as built and as compiled, with the
// compiled one showing fused nodes, in-place marks and the orderings compiling added, and
// the compiler's figures; switching passes off shows in the compiled graph.
#include <string>

#include <gtest/gtest.h>

#include "graph/static/graph_dump.h"
#include "graph_test_util.h"
#include "kernels/registry.h"
#include "static_test_util.h"

namespace ablate::graph {
namespace {

int count(const std::string& text, const std::string& part) {
  int n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

TEST(StaticGraphDump, BeforeAndAfterThePassesAsDot) {
  auto backend = kernels::make_backend("reference");
  const auto spec = testing::parse(testing::tiny_lenet_text());
  const auto options = testing::caffe_sgd_options(4, kernels::DType::f32);
  const auto dump = static_graph::dump_training_graph(spec, options, *backend);
  for (const std::string* dot : {&dump.before_dot, &dump.after_dot}) {
    EXPECT_EQ(dot->rfind("digraph \"tiny_lenet, batch 4, caffe_sgd", 0), 0u);
    EXPECT_EQ(dot->back(), '\n');
    EXPECT_EQ(count(*dot, "{"), count(*dot, "}"));
    EXPECT_NE(dot->find("conv1/conv2d"), std::string::npos);
    EXPECT_NE(dot->find("update/ip2.weight"), std::string::npos);
    EXPECT_NE(dot->find("[label=\"x\\nplaceholder\\nf32[4, 1, 12, 12]\""), std::string::npos);  // dot's \n
    EXPECT_EQ(dot->find("\\\\"), std::string::npos);  // no doubled backslash
  }
  EXPECT_NE(dump.before_dot.find("grad/conv1/conv2d/conv2d_grad_input"), std::string::npos);
  EXPECT_EQ(dump.after_dot.find("grad/conv1/conv2d/conv2d_grad_input"), std::string::npos);  // dead code
  EXPECT_EQ(dump.before_dot.find("fused_elementwise"), std::string::npos);
  EXPECT_NE(dump.after_dot.find("ip1/bias_add+relu"), std::string::npos);
  EXPECT_NE(dump.after_dot.find("(in place)"), std::string::npos);
  EXPECT_GT(count(dump.after_dot, "style=dashed"), count(dump.before_dot, "style=dashed"));
  EXPECT_GT(dump.stats.passes.nodes_before, dump.stats.passes.nodes_after);
  EXPECT_LT(dump.stats.planned_bytes, dump.stats.unplanned_bytes);

  auto without = options;
  without.disabled_passes = {"elementwise_fusion", "dce"};
  const auto plain = static_graph::dump_training_graph(spec, without, *backend);
  EXPECT_EQ(plain.after_dot.find("fused_elementwise"), std::string::npos);
  EXPECT_NE(plain.after_dot.find("grad/conv1/conv2d/conv2d_grad_input"), std::string::npos);
  without.disabled_passes = {"fusion"};
  testing::expect_error<std::invalid_argument>([&] { static_graph::dump_training_graph(spec, without, *backend); },
                                               {"'fusion'", "elementwise_fusion"});
}

}  // namespace
}  // namespace ablate::graph
