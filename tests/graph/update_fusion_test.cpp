// The update_fusion pass (graph/static/update_fusion_pass.cpp): which weight gradients fold into
// their update (every fully connected layer's, for Caffe's SGD, Torch's SGD and Adam) and which
// stay (Adam with a weight decay, gradients that go through an all-reduce); a fused graph trains
// as the unfused one in f64, on the reference backend (the Backend's unfused default) and on the
// CPU backends' band loop (kernels/cpu/linear_update.cpp), and gives its gradients up as fetches.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "graph/engine.h"
#include "graph/static/passes.h"
#include "graph/static/training_graph.h"
#include "graph_test_util.h"
#include "kernels/registry.h"
#include "static_test_util.h"

namespace ablate::graph {
namespace {

using static_graph::Graph;
using static_graph::OpKind;

int count_ops(const Graph& g, OpKind op) {
  int n = 0;
  for (int id : g.execution_order()) n += g.node(id).op == op ? 1 : 0;
  return n;
}

EngineOptions with_optimizer(const std::string& type) {
  EngineOptions o = type == "adam" ? testing::adam_options(4, kernels::DType::f64)
                                   : testing::caffe_sgd_options(4, kernels::DType::f64);
  if (type == "torch_sgd") {
    o.optimizer.type = "torch_sgd";
    o.optimizer.nesterov = true;
    o.optimizer.weight_decay = 1e-3;
  }
  return o;
}

TEST(UpdateFusion, FoldsEveryClassifierGradientIntoItsUpdateAndGivesUpItsFetch) {
  auto backend = kernels::make_backend("reference");
  const auto spec = testing::parse(testing::tiny_lenet_text());
  for (const std::string type : {"caffe_sgd", "torch_sgd", "adam"}) {
    SCOPED_TRACE(type);
    Graph g = static_graph::build_training_graph(models::CheckedModel(spec), 4, with_optimizer(type)).graph;
    const int products = count_ops(g, OpKind::linear_grad_weight);
    ASSERT_EQ(products, 2);  // ip1, ip2
    const std::size_t fetches = g.fetches.size();
    EXPECT_EQ(static_graph::update_fusion_pass(g), products);
    EXPECT_EQ(count_ops(g, OpKind::linear_grad_weight), 0);
    EXPECT_EQ(count_ops(g, OpKind::linear_grad_weight_update), products);
    EXPECT_EQ(count_ops(g, OpKind::conv2d_grad_filter), 2);  // the convolutions keep theirs
    ASSERT_EQ(g.fetches.size(), fetches);  // the positions stay: fetch i + 1 is parameter i's gradient
    int given_up = 0;
    for (const auto& f : g.fetches) given_up += f.valid() ? 0 : 1;
    EXPECT_EQ(given_up, products);
    for (int id : g.execution_order()) {
      const auto& n = g.node(id);
      if (n.op != OpKind::linear_grad_weight_update) continue;
      EXPECT_EQ(g.node(n.inputs[2].node).op, OpKind::variable) << n.name;
      EXPECT_EQ(n.inputs.size(), type == "adam" ? 5u : 4u) << n.name;  // x, dy, w and the slots
      EXPECT_TRUE(n.outputs.empty()) << n.name;
    }
  }
}

TEST(UpdateFusion, LeavesDecayedAdamAndAllReducedGradientsAlone) {
  const auto spec = testing::parse(testing::tiny_lenet_text());
  EngineOptions decayed = with_optimizer("adam");
  decayed.optimizer.weight_decay = 1e-4;  // L2 added to the gradient first: a pass of its own
  Graph a = static_graph::build_training_graph(models::CheckedModel(spec), 4, decayed).graph;
  EXPECT_EQ(static_graph::update_fusion_pass(a), 0);
  // Data parallel: the apply nodes read the all-reduce's means, never the product.
  Graph b = static_graph::build_training_graph(models::CheckedModel(spec), 4, with_optimizer("adam"), {{0, 8}}).graph;
  EXPECT_EQ(static_graph::update_fusion_pass(b), 0);
  EXPECT_EQ(count_ops(b, OpKind::linear_grad_weight), 2);
}

// Losses of every step and the parameters after them, the pass on and off.
void expect_trains_as_unfused(const std::string& backend_name, const std::string& type) {
  SCOPED_TRACE(backend_name + " " + type);
  const auto spec = testing::parse(testing::tiny_lenet_text());
  auto backend = kernels::make_backend(backend_name, 2);
  EngineOptions on = with_optimizer(type), off = on;
  off.disabled_passes = {"update_fusion"};
  auto fused = make_engine("static", spec, *backend, on);
  auto plain = make_engine("static", spec, *backend, off);
  for (int step = 0; step < 4; ++step) {
    const auto batch = testing::random_batch(spec, 4, kernels::DType::f64, 20 + static_cast<std::uint64_t>(step));
    const double a = fused->train_step(batch.x, batch.labels, step), b = plain->train_step(batch.x, batch.labels, step);
    EXPECT_NEAR(a, b, 1e-12 * (1 + std::abs(b))) << "step " << step;
  }
  const auto fp = fused->parameters(), pp = plain->parameters();
  ASSERT_EQ(fp.size(), pp.size());
  int given_up = 0;
  for (std::size_t i = 0; i < fp.size(); ++i) {
    given_up += fp[i]->grad.empty() ? 1 : 0;
    for (std::int64_t j = 0; j < pp[i]->value.numel(); ++j)
      ASSERT_NEAR(fp[i]->value.at(j), pp[i]->value.at(j), 1e-12 * (1 + std::abs(pp[i]->value.at(j)))) << pp[i]->name;
  }
  EXPECT_EQ(given_up, 2);  // ip1's and ip2's weights: their gradients were never whole
}

TEST(UpdateFusion, TrainsAsTheUnfusedGraphInF64) {
  for (const std::string backend : {"reference", "openblas", "onednn"})
    for (const std::string type : {"caffe_sgd", "torch_sgd", "adam"}) expect_trains_as_unfused(backend, type);
}

}  // namespace
}  // namespace ablate::graph
