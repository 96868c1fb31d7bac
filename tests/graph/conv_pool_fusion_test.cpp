// The conv_pool_fusion pass (graph/static/conv_pool_fusion_pass.cpp) on the training graph of a
// LeNet-like model: conv1 and pool1 become one conv2d_max_pool node and pool1's gradient with
// conv1's weight gradient one conv2d_max_pool_grad_filter, conv1's output and its gradient gone
// from the graph; conv2 (whose data gradient pool1's backward needs) stays apart; nothing
// folds under Theano's `all` pool gradient or where conv1's output is fetched; and one training
// step gives the loss and gradients of the pass off (f64 on reference and eigen within 1e-12,
// f32 on eigen and onednn at one and two threads within 1e-5: the weight gradient is summed
// over slices of images and then the workers).
#include <gtest/gtest.h>

#include "graph/static/passes.h"
#include "graph/static/training_graph.h"
#include "graph_test_util.h"
#include "kernels/registry.h"
#include "models/parameters.h"
#include "fetch_compare.h"
#include "static_test_util.h"

namespace ablate::graph {
namespace {

using static_graph::Graph;
using static_graph::Node;
using static_graph::OpKind;

constexpr std::int64_t kBatch = 6;

struct Training {
  static_graph::VariableStore store;
  std::unique_ptr<static_graph::Session> session;
};

std::unique_ptr<Training> training(kernels::Backend& backend, kernels::DType dtype, std::vector<std::string> disabled,
                                   bool fetch_conv1 = false) {
  const auto spec = testing::parse(testing::tiny_lenet_text(), "tiny_lenet.model");
  auto t = std::make_unique<Training>();
  auto tg = static_graph::build_training_graph(models::CheckedModel(spec), kBatch, testing::adam_options(kBatch, dtype));
  for (const auto& p : models::make_initial_parameters(spec, dtype, 1)) t->store.assign(p.name, p.value, backend);
  for (int id = 0; id < tg.graph.size(); ++id) {
    const Node& n = tg.graph.node(id);
    if (n.op == OpKind::variable) t->store.create(n.attrs.key, n.outputs[0].shape, n.outputs[0].dtype, backend);
    if (fetch_conv1 && n.op == OpKind::conv2d && n.name.rfind("conv1/", 0) == 0) tg.graph.fetches.push_back({id, 0});
  }
  t->session = std::make_unique<static_graph::Session>(std::move(tg.graph), backend, t->store,
                                                       static_graph::SessionOptions{std::move(disabled), ExecutorKind::sequential, 1});
  const auto batch = testing::random_batch(spec, kBatch, dtype, 5);
  t->session->feed("x", batch.x);
  t->session->feed("labels", batch.labels);
  return t;
}

int count(const Graph& g, OpKind op) {
  int n = 0;
  for (int id : g.execution_order()) n += g.node(id).op == op;
  return n;
}

const Node& only(const Graph& g, OpKind op) {
  for (int id : g.execution_order())
    if (g.node(id).op == op) return g.node(id);
  throw std::logic_error("no live node of that op");
}

TEST(ConvPoolFusion, FoldsTheFirstConvolutionWithItsPoolingAndBothGradients) {
  auto backend = kernels::make_backend("reference");
  auto on = training(*backend, kernels::DType::f64, {});
  auto off = training(*backend, kernels::DType::f64, {"conv_pool_fusion"});
  const Graph &a = on->session->graph(), &b = off->session->graph();
  EXPECT_EQ(a.live_count(), b.live_count() - 2);
  EXPECT_EQ(count(a, OpKind::conv2d_max_pool), 1);
  EXPECT_EQ(count(a, OpKind::conv2d_max_pool_grad_filter), 1);
  EXPECT_EQ(count(a, OpKind::conv2d), 1);             // conv2
  EXPECT_EQ(count(a, OpKind::pool2d), 1);             // pool2
  EXPECT_EQ(count(a, OpKind::pool2d_grad), 1);        // pool2's
  EXPECT_EQ(count(a, OpKind::conv2d_grad_filter), 1); // conv2's
  const Node& conv = only(a, OpKind::conv2d_max_pool);
  EXPECT_EQ(conv.name.rfind("conv1/", 0), 0u) << conv.name;
  EXPECT_EQ(conv.outputs[0].shape, (kernels::Shape{kBatch, 4, 5, 5}));  // pooled: conv1's 10 x 10 output is gone
  const Node& grad = only(a, OpKind::conv2d_max_pool_grad_filter);
  EXPECT_EQ(grad.name.rfind("grad/conv1/", 0), 0u) << grad.name;
  ASSERT_EQ(grad.inputs.size(), 3u);
  EXPECT_EQ(a.node(grad.inputs[2].node).op, OpKind::conv2d_max_pool);  // the workspace of the fused forward
  for (int id : a.execution_order())
    for (const auto& out : a.node(id).outputs) EXPECT_NE(out.shape, (kernels::Shape{kBatch, 4, 10, 10})) << a.node(id).name;
}

TEST(ConvPoolFusion, LeavesThePairUnderTheAllGradientOrWhereTheConvolutionIsFetched) {
  kernels::BackendOptions options;
  options.pool_gradient = kernels::PoolGradient::all;
  auto theano = kernels::make_backend("eigen", options);
  EXPECT_EQ(count(training(*theano, kernels::DType::f32, {})->session->graph(), OpKind::conv2d_max_pool), 0);
  auto backend = kernels::make_backend("eigen");
  EXPECT_EQ(count(training(*backend, kernels::DType::f32, {}, true)->session->graph(), OpKind::conv2d_max_pool), 0);
  EXPECT_EQ(count(training(*backend, kernels::DType::f32, {})->session->graph(), OpKind::conv2d_max_pool), 1);
}

void expect_same_step(const std::string& name, kernels::DType dtype, int threads, double bound) {
  SCOPED_TRACE(name + " " + kernels::dtype_name(dtype) + " " + std::to_string(threads) + " thread(s)");
  kernels::BackendOptions options;
  options.threads = threads;
  options.deterministic = true;
  auto backend = kernels::make_backend(name, options);
  auto on = training(*backend, dtype, {});
  auto off = training(*backend, dtype, {"conv_pool_fusion"});
  ASSERT_EQ(count(on->session->graph(), OpKind::conv2d_max_pool), 1);
  testing::expect_fetches_close(testing::run_and_fetch(*on->session), testing::run_and_fetch(*off->session), bound);
}

TEST(ConvPoolFusion, OneStepGivesTheLossAndGradientsOfThePassOff) {
  expect_same_step("reference", kernels::DType::f64, 1, 1e-12);
  expect_same_step("eigen", kernels::DType::f64, 2, 1e-12);
  for (int threads : {1, 2}) {
    expect_same_step("eigen", kernels::DType::f32, threads, 1e-5);
    expect_same_step("onednn", kernels::DType::f32, threads, 1e-5);
  }
}

}  // namespace
}  // namespace ablate::graph
