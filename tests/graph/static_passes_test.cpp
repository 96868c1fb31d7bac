// Each graph pass of the static strategy on small hand-built graphs: what it rewrites (node
// counts, which nodes were folded, merged, removed, fused or made in place) and that the
// fetched values are bit-identical to a session with that pass switched off.
#include <algorithm>

#include <gtest/gtest.h>

#include "graph/static/passes.h"
#include "graph/static/training_graph.h"
#include "graph_test_util.h"
#include "kernels/registry.h"
#include "static_test_util.h"

namespace ablate::graph {
namespace {

using static_graph::Attrs;
using static_graph::Graph;
using static_graph::OpKind;
using static_graph::Value;
using testing::GraphKit;

Attrs activation(kernels::Activation a) {
  Attrs attrs;
  attrs.activation = a;
  return attrs;
}
Attrs factor(double alpha) {
  Attrs attrs;
  attrs.alpha = alpha;
  return attrs;
}

void expect_same_results_without(GraphKit& k, const std::string& pass, std::vector<std::string> also_off = {}) {
  auto on = k.session(also_off);
  also_off.push_back(pass);
  auto off = k.session(also_off);
  testing::expect_identical(testing::run_and_fetch(*on), testing::run_and_fetch(*off));
}

TEST(StaticPasses, ConstantFoldingEvaluatesConstantSubgraphsOnce) {
  auto backend = kernels::make_backend("reference");
  GraphKit k(*backend);
  const Value x = k.placeholder("x", {3, 4}, 1);
  const Value c = k.graph.out(k.graph.add_constant("c", testing::pattern_tensor({3, 4}, kernels::DType::f64, 2)));
  const Value tripled = k.op(OpKind::scale, "tripled", {c}, factor(3));
  const Value squashed = k.op(OpKind::activation, "squashed", {tripled}, activation(kernels::Activation::tanh));
  const Value y = k.op(OpKind::add, "y", {x, squashed});
  kernels::Tensor two({1}, kernels::DType::f64);
  two.set(0, 2.0);
  const Value h = k.graph.out(k.graph.add_constant("h", two, true));
  const Value quarter = k.op(OpKind::scalar_scale, "quarter", {h}, factor(0.25));
  k.graph.fetches = {y, quarter};

  Graph g = k.graph;
  EXPECT_EQ(static_graph::constant_folding_pass(g, *backend), 3);  // tripled, squashed, quarter
  EXPECT_TRUE(g.node(tripled.node).dead);
  EXPECT_TRUE(g.node(squashed.node).dead);
  const static_graph::Node& folded = g.node(g.node(y.node).inputs[1].node);
  EXPECT_EQ(folded.op, OpKind::constant);
  EXPECT_EQ(folded.name, "squashed/folded");
  EXPECT_EQ(g.node(g.fetches[1].node).op, OpKind::constant);
  EXPECT_EQ(g.node(g.fetches[1].node).attrs.value.at(0), 0.5);
  EXPECT_TRUE(g.node(g.fetches[1].node).outputs[0].host);
  EXPECT_FALSE(g.node(x.node).dead);
  expect_same_results_without(k, "constant_folding");
}

TEST(StaticPasses, CseMergesEqualNodesAndConstantsInOneSweep) {
  auto backend = kernels::make_backend("reference");
  GraphKit k(*backend);
  const Value x = k.placeholder("x", {2, 3, 4}, 1);
  const Value a = k.op(OpKind::activation, "a", {x});
  const Value b = k.op(OpKind::activation, "b", {x});  // the same as a
  const Value t = k.op(OpKind::activation, "t", {x}, activation(kernels::Activation::tanh));  // not: another op
  const auto value = testing::pattern_tensor({2, 3, 4}, kernels::DType::f64, 5);
  const Value c1 = k.graph.out(k.graph.add_constant("c1", value));
  const Value c2 = k.graph.out(k.graph.add_constant("c2", value.clone()));  // equal to c1
  const Value c3 = k.graph.out(k.graph.add_constant("c3", testing::pattern_tensor({2, 3, 4}, kernels::DType::f64, 6)));
  const Value m1 = k.op(OpKind::mul, "m1", {a, c1});
  const Value m2 = k.op(OpKind::mul, "m2", {b, c2});  // equal to m1 once b and c2 are merged
  const Value out = k.op(OpKind::add, "out", {m1, m2});
  const Value other = k.op(OpKind::add, "other", {t, c3});
  k.graph.fetches = {out, other};

  Graph g = k.graph;
  const int before = g.live_count();
  EXPECT_EQ(static_graph::cse_pass(g), 3);  // b, c2, m2
  EXPECT_EQ(g.live_count(), before - 3);
  for (const Value& v : {b, c2, m2}) EXPECT_TRUE(g.node(v.node).dead) << g.node(v.node).name;
  for (const Value& v : {a, t, c1, c3, m1}) EXPECT_FALSE(g.node(v.node).dead) << g.node(v.node).name;
  EXPECT_EQ(g.node(out.node).inputs[0], m1);
  EXPECT_EQ(g.node(out.node).inputs[1], m1);
  expect_same_results_without(k, "cse");
}

TEST(StaticPasses, DceRemovesWhatNoFetchOrTargetNeeds) {
  auto backend = kernels::make_backend("reference");
  GraphKit k(*backend);
  const Value x = k.placeholder("x", {2, 5}, 1);
  const Value kept = k.op(OpKind::activation, "kept", {x});
  const Value unused = k.op(OpKind::activation, "unused", {x}, activation(kernels::Activation::tanh));
  const Value unused_too = k.op(OpKind::scale, "unused_too", {unused}, factor(2));
  kernels::Tensor one({1}, kernels::DType::f64);
  one.set(0, 1.0);
  const Value h = k.graph.out(k.graph.add_constant("h", one, true));
  const int check = k.graph.add(OpKind::check_numerics, "check", {h});
  k.graph.fetches = {kept};
  k.graph.targets = {check};

  Graph g = k.graph;
  EXPECT_EQ(static_graph::dce_pass(g), 2);
  EXPECT_TRUE(g.node(unused.node).dead);
  EXPECT_TRUE(g.node(unused_too.node).dead);
  EXPECT_FALSE(g.node(check).dead);
  EXPECT_FALSE(g.node(h.node).dead);
  expect_same_results_without(k, "dce");
}

TEST(StaticPasses, DceDropsTheInputImagesGradientOfATrainingGraph) {
  auto spec = testing::parse(testing::tiny_lenet_text());
  EngineOptions options = testing::caffe_sgd_options(4, kernels::DType::f32);
  Graph g = static_graph::build_training_graph(models::CheckedModel(spec), 4, options).graph;
  auto find = [&](const std::string& name) {
    for (int id = 0; id < g.size(); ++id)
      if (g.node(id).name == name) return id;
    return -1;
  };
  const int input_gradient = find("grad/conv1/conv2d/conv2d_grad_input");
  ASSERT_GE(input_gradient, 0) << "the gradient builder emits every float input's gradient";
  EXPECT_GT(static_graph::dce_pass(g), 0);
  EXPECT_TRUE(g.node(input_gradient).dead);
  EXPECT_FALSE(g.node(find("grad/conv2/conv2d/conv2d_grad_input")).dead);
  EXPECT_FALSE(g.node(find("update/conv1.weight")).dead);
}

TEST(StaticPasses, FusionMergesBiasActivationAndScalarChainsIntoOneNode) {
  auto backend = kernels::make_backend("reference");
  GraphKit k(*backend);
  const Value x = k.placeholder("x", {2, 3, 4, 4}, 1);
  const Value b = k.variable("b", {3}, 2);
  const Value biased = k.op(OpKind::bias_add, "biased", {x, b});
  const Value relu = k.op(OpKind::activation, "relu", {biased});
  const Value doubled = k.op(OpKind::scale, "doubled", {relu}, factor(2));
  const Value halved = k.op(OpKind::scale, "halved", {doubled}, factor(0.5));
  const Value squashed = k.op(OpKind::activation, "squashed", {halved}, activation(kernels::Activation::tanh));
  // z is read twice (by a mul and by an activation gradient): it stays a node of its own.
  const Value z = k.op(OpKind::activation, "z", {k.placeholder("x2", {2, 3, 4, 4}, 3)});
  const Value mask = k.variable("mask", {2, 3, 4, 4}, 4);
  const Value zm = k.op(OpKind::mul, "zm", {z, mask});
  // The dropout and ReLU gradients: dy * mask, then relu_grad(z, .).
  const Value dy = k.placeholder("dy", {2, 3, 4, 4}, 5);
  const Value masked = k.op(OpKind::mul, "masked", {dy, mask});
  const Value dz = k.op(OpKind::activation_grad, "dz", {z, masked});
  k.graph.fetches = {squashed, zm, dz};

  Graph g = k.graph;
  const int before = g.live_count();
  EXPECT_EQ(static_graph::elementwise_fusion_pass(g), 5);  // 4 merges into one chain, 1 for the gradient
  EXPECT_EQ(g.live_count(), before - 5);                  // 7 nodes became 2
  const static_graph::Node& chain = g.node(g.fetches[0].node);
  ASSERT_EQ(chain.op, OpKind::fused_elementwise);
  EXPECT_EQ(chain.name, "biased+relu+doubled+halved+squashed");
  std::vector<OpKind> steps;
  for (const auto& s : chain.attrs.steps) steps.push_back(s.op);
  EXPECT_EQ(steps, (std::vector<OpKind>{OpKind::bias_add, OpKind::activation, OpKind::scale, OpKind::scale,
                                        OpKind::activation}));
  EXPECT_EQ(chain.inputs, (std::vector<Value>{x, b}));
  const static_graph::Node& gradient = g.node(g.fetches[2].node);
  ASSERT_EQ(gradient.op, OpKind::fused_elementwise);
  EXPECT_EQ(gradient.inputs, (std::vector<Value>{dy, mask, z}));
  EXPECT_FALSE(g.node(z.node).dead);
  EXPECT_EQ(g.node(g.fetches[1].node).op, OpKind::mul);
  expect_same_results_without(k, "elementwise_fusion");
}

TEST(StaticPasses, InplaceOverwritesALastReadInputAndOrdersTheOtherReaders) {
  auto backend = kernels::make_backend("reference");
  GraphKit k(*backend);
  const Value x = k.placeholder("x", {2, 3, 4, 4}, 1);
  static_graph::Attrs same;
  same.conv.pad_top = same.conv.pad_left = same.conv.pad_bottom = same.conv.pad_right = 1;
  const Value c = k.op(OpKind::conv2d, "c", {x, k.variable("w", {4, 3, 3, 3}, 2)}, same);
  const Value r = k.op(OpKind::activation, "r", {c});                                             // over c
  const Value t = k.op(OpKind::activation, "t", {r}, activation(kernels::Activation::tanh));       // r read later
  const Value m = k.op(OpKind::mul, "m", {r, t});                                                  // over r, after t
  const Value e = k.op(OpKind::scale, "e", {t}, factor(2));                                        // t is fetched
  const Value p = k.op(OpKind::activation, "p", {x});                                              // x is fed
  k.graph.fetches = {m, t, e, p};

  Graph g = k.graph;
  EXPECT_EQ(static_graph::inplace_pass(g), 2);
  EXPECT_EQ(g.node(r.node).inplace_input, 0);
  EXPECT_EQ(g.node(t.node).inplace_input, -1);
  EXPECT_EQ(g.node(m.node).inplace_input, 0);
  EXPECT_NE(std::find(g.node(m.node).control.begin(), g.node(m.node).control.end(), t.node), g.node(m.node).control.end());
  EXPECT_EQ(g.node(e.node).inplace_input, -1);
  EXPECT_EQ(g.node(p.node).inplace_input, -1);

  const std::vector<std::string> no_fusion{"conv_activation_fusion", "elementwise_fusion"};
  auto on = k.session(no_fusion);
  EXPECT_TRUE(on->memory_plan().aliased(r.node));
  EXPECT_EQ(on->tensor(r).raw_data(), on->tensor(c).raw_data());
  auto off = k.session({"conv_activation_fusion", "elementwise_fusion", "inplace"});
  EXPECT_NE(off->tensor(r).raw_data(), off->tensor(c).raw_data());
  EXPECT_LT(on->stats().planned_bytes, off->stats().planned_bytes);
  expect_same_results_without(k, "inplace", no_fusion);
}

TEST(StaticPasses, PipelineNamesCanBeSwitchedOffAndUnknownNamesAreListed) {
  EXPECT_EQ(static_graph::pass_names(),
            (std::vector<std::string>{"constant_folding", "cse", "dce", "attention_fusion", "conv_activation_fusion", "conv_pool_fusion", "elementwise_fusion",
                                      "update_fusion", "blocked_layout", "inplace", "buffer_forwarding", "memory_planning", "session_buffers",
                                      "refcount_allocation"}));
  testing::expect_error<std::invalid_argument>(
      [] { static_graph::validate_pass_names({"dce", "fusion"}); },
      {"'fusion'", "not known",
       "constant_folding, cse, dce, attention_fusion, conv_activation_fusion, conv_pool_fusion, elementwise_fusion, update_fusion, "
       "blocked_layout, inplace, buffer_forwarding, memory_planning, session_buffers, refcount_allocation"});
  auto backend = kernels::make_backend("reference");
  auto spec = testing::parse(testing::tiny_lenet_text());
  Graph g = static_graph::build_training_graph(models::CheckedModel(spec), 4, testing::caffe_sgd_options(4, kernels::DType::f32)).graph;
  Graph all = g;
  const auto report = static_graph::run_passes(all, {}, *backend);
  ASSERT_EQ(report.rewrites.size(), 10u);
  EXPECT_LT(report.nodes_after, report.nodes_before);
  const auto none = static_graph::run_passes(
      g, {"constant_folding", "cse", "dce", "attention_fusion", "conv_activation_fusion", "conv_pool_fusion", "elementwise_fusion", "update_fusion",
          "blocked_layout", "inplace"},
      *backend);
  EXPECT_TRUE(none.rewrites.empty());
  EXPECT_EQ(none.nodes_after, none.nodes_before);
}

}  // namespace
}  // namespace ablate::graph
