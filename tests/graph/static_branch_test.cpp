// The static strategy on branching models, in f64 on the reference backend: the
// residual block (a fan-out summed by add_n, an add layer, global average pooling) and two
// concatenated branches (concat and its concat_grad). Every parameter's gradient against
// central differences; the same losses and weights over 5 steps with every pass on as with
// every pass off (and in each framework's pass set, and under the inter-op pool), so no pass
// fuses away, overwrites or frees a value another branch still reads; one add_n per fan-out
// in the built graph (TF's AddN) and in the compiled one; and the add_n op itself: its
// order of summation, and no in-place write over an input it reads again.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "graph/static/graph_dump.h"
#include "graph/static/passes.h"
#include "graph/static/training_graph.h"
#include "graph_test_util.h"
#include "kernels/registry.h"
#include "models/checked_model.h"
#include "static_branch_models.h"
#include "static_test_util.h"

namespace ablate::graph {
namespace {

using static_graph::OpKind;
using static_graph::Value;

std::vector<std::string> branch_models() { return {testing::tiny_residual_text(), testing::tiny_concat_text()}; }

TEST(StaticBranch, EveryParameterGradientMatchesCentralDifferences) {
  for (const std::string& text : branch_models()) {
    const models::ModelSpec spec = testing::parse(text);
    SCOPED_TRACE(spec.name);
    auto backend = kernels::make_backend("reference");
    EngineOptions options = testing::branch_options();
    options.disabled_passes = {"update_fusion"};  // the classifier's gradients stay whole, to be compared
    auto engine = make_engine("static", spec, *backend, options);
    testing::expect_every_parameter_gradient(*engine, testing::random_batch(spec, 2, kernels::DType::f64, 11));
  }
}

// Pass sets: every pass off (each tensor a buffer of its own), every pass on (the planned
// arena), TensorFlow's and Theano's sets (the refcount mode, with buffer forwarding or the
// static in-place pass), and every pass on under a pool of two inter-op threads.
struct PassSet {
  const char* name;
  std::vector<std::string> disabled;
  int threads = 1;
};

std::vector<PassSet> pass_sets() {
  auto all_but = [](std::vector<std::string> keep) {
    std::vector<std::string> off;
    for (const std::string& p : static_graph::pass_names())
      if (std::find(keep.begin(), keep.end(), p) == keep.end()) off.push_back(p);
    return off;
  };
  return {{"all on", {}},
          {"tensorflow", all_but({"constant_folding", "cse", "dce", "buffer_forwarding", "refcount_allocation"})},
          {"theano", all_but({"constant_folding", "cse", "dce", "elementwise_fusion", "inplace", "refcount_allocation"})},
          {"all on, conv fusion off", {"conv_activation_fusion"}},
          {"all on, 2 inter-op threads", {}, 2}};
}

TEST(StaticBranch, EveryPassOnTrainsAsEveryPassOff) {
  for (const std::string& text : branch_models()) {
    const models::ModelSpec spec = testing::parse(text);
    auto backend = kernels::make_backend("reference");
    EngineOptions off_options = testing::branch_options();
    off_options.disabled_passes = static_graph::pass_names();
    auto off_engine = make_engine("static", spec, *backend, off_options);
    const testing::BranchRun off = testing::train_branch_model(*off_engine, spec);
    for (const PassSet& set : pass_sets()) {
      SCOPED_TRACE(spec.name + ", " + set.name);
      EngineOptions o = testing::branch_options();
      o.disabled_passes = set.disabled;
      o.inter_op_threads = set.threads;
      if (set.threads > 1) o.executor = ExecutorKind::parallel;
      auto engine = make_engine("static", spec, *backend, o);
      testing::expect_same_training(testing::train_branch_model(*engine, spec), off, 1e-12);
    }
  }
}

// After the rewriting passes on the residual and concat training graphs: no live node reads
// what a pass killed (fusion took a producer only when nothing else read it), and every node
// that writes over an input is that value's last reader, the other readers ordered before it
// by control edges (the parallel executor keeps them first).
TEST(StaticBranch, PassesKeepEveryBranchesValue) {
  auto backend = kernels::make_backend("reference");
  for (const std::string& text : branch_models()) {
    const models::CheckedModel model(testing::parse(text));
    SCOPED_TRACE(model.spec().name);
    auto training = static_graph::build_training_graph(model, 2, testing::branch_options());
    static_graph::Graph& g = training.graph;
    const static_graph::PassReport report = static_graph::run_passes(g, {}, *backend);
    const std::vector<int> order = g.execution_order();
    std::vector<int> position(static_cast<std::size_t>(g.size()), -1);
    for (std::size_t i = 0; i < order.size(); ++i) position[static_cast<std::size_t>(order[i])] = static_cast<int>(i);
    const auto uses = g.uses();
    int inplace = 0;
    for (int id : order) {
      const static_graph::Node& n = g.node(id);
      for (const Value& v : n.inputs) ASSERT_FALSE(g.node(v.node).dead) << n.name << " reads dead " << g.node(v.node).name;
      if (n.inplace_input < 0) continue;
      ++inplace;
      const Value v = n.inputs[static_cast<std::size_t>(n.inplace_input)];
      for (const static_graph::Use& u : uses[static_cast<std::size_t>(v.node)][static_cast<std::size_t>(v.output)]) {
        if (u.node == id) continue;
        EXPECT_LT(position[static_cast<std::size_t>(u.node)], position[static_cast<std::size_t>(id)])
            << g.node(u.node).name << " reads " << g.describe(v) << " after " << n.name << " overwrote it";
        EXPECT_NE(std::find(n.control.begin(), n.control.end(), u.node), n.control.end())
            << g.node(u.node).name << " is not ordered before " << n.name;
      }
    }
    EXPECT_GT(inplace, 0);
    EXPECT_LT(report.nodes_after, report.nodes_before);
  }
}

// The layer outputs read by two or more layers: where the gradients of several branches meet.
// (The model input's readers give it partial gradients too, but no fetch asks for its sum.)
int fan_outs(const models::CheckedModel& model) {
  int count = 0;
  for (int i = 0; i < static_cast<int>(model.size()); ++i) count += model.readers(i).size() >= 2;
  return count;
}

std::vector<int> add_n_nodes(const static_graph::Graph& g) {
  std::vector<int> out;
  for (int id = 0; id < g.size(); ++id)
    if (!g.node(id).dead && g.node(id).op == OpKind::add_n) out.push_back(id);
  return out;
}

TEST(StaticBranch, OneAddNAtEachFanOut) {
  {
    const models::CheckedModel model(testing::parse(testing::tiny_residual_text()));
    ASSERT_EQ(fan_outs(model), 1);  // relu0: conv1 and the shortcut
    const auto training = static_graph::build_training_graph(model, 2, testing::branch_options());
    const static_graph::Graph& g = training.graph;
    const std::vector<int> sums = add_n_nodes(g);
    ASSERT_EQ(sums.size(), 1u);
    const static_graph::Node& sum = g.node(sums[0]);
    EXPECT_EQ(sum.name, "grad/relu0/relu/add_n");
    ASSERT_EQ(sum.inputs.size(), 2u);  // the shortcut's dy and conv1's gradient input
    std::vector<OpKind> made_by;
    for (const Value& v : sum.inputs) made_by.push_back(g.node(v.node).op);
    EXPECT_NE(std::find(made_by.begin(), made_by.end(), OpKind::conv2d_grad_input), made_by.end());
    // relu0's gradient reads the sum.
    bool read = false;
    for (int id = 0; id < g.size(); ++id)
      if (g.node(id).op == OpKind::activation_grad && g.node(id).name.rfind("grad/relu0/", 0) == 0)
        read = read || g.node(id).inputs[1] == Value{sums[0], 0};
    EXPECT_TRUE(read);
    // No add node sums gradients any more: the only adds are the model's own.
    for (int id = 0; id < g.size(); ++id) {
      if (g.node(id).op == OpKind::add) {
        EXPECT_EQ(g.node(id).name.rfind("grad/", 0), std::string::npos) << g.node(id).name;
      }
    }
  }
  {
    // The concat model's only fan-out is the model input: no sum.
    const models::CheckedModel model(testing::parse(testing::tiny_concat_text()));
    ASSERT_EQ(fan_outs(model), 0);
    const auto training = static_graph::build_training_graph(model, 2, testing::branch_options());
    EXPECT_TRUE(add_n_nodes(training.graph).empty());
  }
}

// What `ablate graph` shows: the compiled residual graph keeps its one AddN (no pass fuses it).
TEST(StaticBranch, TheCompiledGraphShowsOneAddN) {
  auto count = [](const std::string& dot) {
    int n = 0;
    for (std::size_t at = dot.find("\\nadd_n"); at != std::string::npos; at = dot.find("\\nadd_n", at + 1)) ++n;
    return n;
  };
  auto backend = kernels::make_backend("reference");
  const auto residual = static_graph::dump_training_graph(testing::parse(testing::tiny_residual_text()),
                                                          testing::branch_options(), *backend);
  EXPECT_EQ(count(residual.before_dot), 1);
  EXPECT_EQ(count(residual.after_dot), 1);
}

// add_n sums in input order, ((a + b) + c) + d, exactly as the add chain it replaced; in place
// over its first input when that is its last reader, over its second when the first is read
// later, but not over an input it reads again.
TEST(StaticBranch, AddNSumsInOrderAndNeverOverwritesAnInputItReadsAgain) {
  auto backend = kernels::make_backend("reference");
  testing::GraphKit k(*backend);
  const Value a = k.placeholder("a", {2, 3}, 1), b = k.placeholder("b", {2, 3}, 2), c = k.placeholder("c", {2, 3}, 3);
  const Value ta = k.op(OpKind::activation, "ta", {a}, [] {
    static_graph::Attrs t;
    t.activation = kernels::Activation::tanh;
    return t;
  }());
  const Value tb = k.op(OpKind::scale, "tb", {b});
  const Value tc = k.op(OpKind::scale, "tc", {c});
  const Value once = k.op(OpKind::add_n, "once", {ta, b, c, tb});
  const Value second = k.op(OpKind::add_n, "second", {tb, tc});
  const Value twice = k.op(OpKind::add_n, "twice", {tb, c, tb});  // tb again after the first write
  k.graph.fetches = {once, second, twice};

  static_graph::Graph g = k.graph;
  EXPECT_EQ(static_graph::inplace_pass(g), 2);
  EXPECT_EQ(g.node(once.node).inplace_input, 0);    // over ta, read by nothing else
  EXPECT_EQ(g.node(second.node).inplace_input, 1);  // over tc: twice reads tb later
  EXPECT_EQ(g.node(twice.node).inplace_input, -1);

  auto on = k.session();
  const auto fetched = testing::run_and_fetch(*on);
  const kernels::Tensor& av = k.feeds[0].second;
  const kernels::Tensor& bv = k.feeds[1].second;
  const kernels::Tensor& cv = k.feeds[2].second;
  for (std::int64_t i = 0; i < 6; ++i) {
    const double x = std::tanh(av.at(i)), y = bv.at(i), z = cv.at(i);
    EXPECT_EQ(fetched[0].at(i), ((x + y) + z) + y) << i;
    EXPECT_EQ(fetched[1].at(i), y + z) << i;
    EXPECT_EQ(fetched[2].at(i), (y + z) + y) << i;
  }
  auto off = k.session(static_graph::pass_names());
  testing::expect_identical(fetched, testing::run_and_fetch(*off));
}

TEST(StaticBranch, AddNOfOneInputOrOfDifferentShapesIsAnError) {
  auto backend = kernels::make_backend("reference");
  testing::GraphKit k(*backend);
  const Value a = k.placeholder("a", {2, 3}, 1), b = k.placeholder("b", {3, 2}, 2);
  testing::expect_error<std::invalid_argument>([&] { k.op(OpKind::add_n, "lonely", {a}); }, {"lonely", "add_n", "1 inputs"});
  testing::expect_error<std::invalid_argument>([&] { k.op(OpKind::add_n, "odd", {a, a, b}); }, {"odd", "[3, 2]", "[2, 3]"});
}

}  // namespace
}  // namespace ablate::graph
