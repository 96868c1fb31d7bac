// An activation whose backward reads its input x rather than its output y (GELU's case,
// models::LayerType::backward_reads_input) reaches Backend::activation_backward with x in all
// three strategies. Shown with tanh, whose backward computes dy * (1 - s^2) from the tensor
// s it is handed: from x that is 1 - x^2 (not tanh's derivative 1 - tanh(x)^2), so the test
// sees which tensor each strategy hands over.
#include <gtest/gtest.h>

#include <cmath>

#include "dynamic_test_util.h"
#include "graph/dynamic/ops.h"
#include "graph/dynamic/autograd.h"
#include "graph/layerwise/activation_layer.h"
#include "graph/static/autodiff.h"
#include "static_test_util.h"

namespace ablate::graph {
namespace {

double from_input(double x) { return 1 - x * x; }
double from_output(double x) { return 1 - std::tanh(x) * std::tanh(x); }

TEST(ActivationFromInput, LayerwiseHandsTheBottomData) {
  auto backend = kernels::make_backend("reference");
  models::LayerSpec spec;
  spec.name = "a";
  spec.type = "tanh";
  for (bool reads_x : {false, true}) {
    layerwise::ActivationLayer layer(spec, *backend, kernels::DType::f64, kernels::Activation::tanh, reads_x);
    layerwise::Blob bottom("x", kernels::DType::f64, backend->allocator()), top("y", kernels::DType::f64, backend->allocator());
    bottom.reshape({2, 3});
    for (std::int64_t i = 0; i < 6; ++i) bottom.data().set(i, 0.3 * static_cast<double>(i) - 0.7);
    layer.setup({&bottom}, {&top});
    layer.forward({&bottom}, {&top}, {});
    for (std::int64_t i = 0; i < 6; ++i) top.diff().set(i, 1.0);
    layer.backward({&top}, true, {&bottom});
    for (std::int64_t i = 0; i < 6; ++i) {
      const double x = bottom.data().at(i);
      EXPECT_NEAR(bottom.diff().at(i), reads_x ? from_input(x) : from_output(x), 1e-12) << i;
    }
  }
}

TEST(ActivationFromInput, DynamicKeepsX) {
  for (bool reads_x : {false, true}) {
    dynamic::testing::Tape tape;
    dynamic::Variable x = tape.leaf({2, 3}, 5);
    dynamic::backward(dynamic::sum(dynamic::activation(x, kernels::Activation::tanh, reads_x)), 1.0);
    for (std::int64_t i = 0; i < 6; ++i) {
      const double v = x.value().at(i);
      EXPECT_NEAR(x.grad().at(i), reads_x ? from_input(v) : from_output(v), 1e-12) << i;
    }
  }
}

TEST(ActivationFromInput, StaticGradientReadsXThroughEveryPass) {
  auto backend = kernels::make_backend("reference");
  for (bool reads_x : {false, true}) {
    testing::GraphKit k(*backend);
    const auto x = k.placeholder("x", {2, 3}, 7);
    static_graph::Attrs a;
    a.activation = kernels::Activation::tanh;
    a.grad_from_input = reads_x;
    const auto y = k.op(static_graph::OpKind::activation, "act", {x}, a);
    const auto loss = k.op(static_graph::OpKind::sum, "loss", {y});
    k.graph.fetches = {static_graph::add_gradients(k.graph, loss, {x})[0]};
    for (const std::vector<std::string>& disabled : {std::vector<std::string>{}, std::vector<std::string>{"elementwise_fusion", "inplace"}}) {
      auto session = k.session(disabled);
      const auto fetched = testing::run_and_fetch(*session);
      const kernels::Tensor& xs = k.feeds[0].second;
      for (std::int64_t i = 0; i < 6; ++i)
        EXPECT_NEAR(fetched[0].at(i), reads_x ? from_input(xs.at(i)) : from_output(xs.at(i)), 1e-12) << i;
    }
  }
}

}  // namespace
}  // namespace ablate::graph
