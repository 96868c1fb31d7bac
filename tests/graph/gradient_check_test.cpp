// The gradient check (graph/optim/gradient_check.h): a NaN or inf gradient with a finite loss
// stops every strategy with a DivergenceError naming the iteration, the parameter and the
// count; the Optimizer checks after its gradient hook and before any update; the switch
// check_gradients turns it off; a sum of squares that overflowed on finite values is no
// divergence.
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>

#include <gtest/gtest.h>

#include "graph/engine.h"
#include "graph/optim/divergence_error.h"
#include "graph/optim/gradient_check.h"
#include "graph/optim/optimizer.h"
#include "graph_test_util.h"
#include "kernels/registry.h"

namespace ablate::graph {
namespace {

using testing::expect_error;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

struct TwoParameters {
  Parameter a{"ip1.weight", kernels::Tensor({4}, kernels::DType::f32), kernels::Tensor({4}, kernels::DType::f32)};
  Parameter b{"ip1.bias", kernels::Tensor({3}, kernels::DType::f32), kernels::Tensor({3}, kernels::DType::f32)};
  TwoParameters() {
    for (int i = 0; i < 4; ++i) a.value.set(i, 1.0 + i), a.grad.set(i, 0.5);
    for (int i = 0; i < 3; ++i) b.value.set(i, -1.0), b.grad.set(i, 0.25);
  }
  std::vector<Parameter*> list() { return {&a, &b}; }
};

TEST(GradientCheck, OptimizerStopsAfterTheHookBeforeAnyUpdate) {
  auto backend = kernels::make_backend("reference");
  TwoParameters p;
  Optimizer optimizer(OptimizerConfig{}, *backend);
  optimizer.step(p.list(), 0);  // finite: trains
  const double a0 = p.a.value.at(0), b0 = p.b.value.at(0);
  // The hook (where a distributed run averages) poisons the bias: 2 NaN, 1 inf.
  optimizer.set_gradient_hook([](const std::vector<Parameter*>& params) {
    params[1]->grad.set(0, kNaN);
    params[1]->grad.set(1, -kInf);
    params[1]->grad.set(2, kNaN);
  });
  expect_error<DivergenceError>([&] { optimizer.step(p.list(), 7); },
                                {"gradient of ip1.bias", "iteration 7", "2 NaN and 1 inf", "its 3 values"});
  EXPECT_EQ(p.a.value.at(0), a0) << "a parameter was updated before the check";
  EXPECT_EQ(p.b.value.at(0), b0);
  EXPECT_EQ(optimizer.updates(), 1);
}

TEST(GradientCheck, SwitchedOffTheOptimizerTrainsOn) {
  auto backend = kernels::make_backend("reference");
  TwoParameters p;
  OptimizerConfig config;
  config.check_gradients = false;
  Optimizer optimizer(config, *backend);
  p.a.grad.set(2, kInf);
  EXPECT_NO_THROW(optimizer.step(p.list(), 0));
  EXPECT_FALSE(std::isfinite(p.a.value.at(2)));
}

TEST(GradientCheck, NamesTheFirstBadParameterAndIgnoresAnOverflowedSum) {
  for (const std::string& name : kernels::backend_names()) {
    SCOPED_TRACE(name);
    std::unique_ptr<kernels::Backend> backend;
    try {
      backend = kernels::make_backend(name);
    } catch (const std::exception& e) {  // cuda without a device: nothing to check here
      std::printf("skipping backend %s: %s\n", name.c_str(), e.what());
      continue;
    }
    TwoParameters p;
    EXPECT_NO_THROW(check_finite_gradients(p.list(), 0, *backend));
    p.a.grad.set(3, kInf);
    p.b.grad.set(0, kNaN);
    expect_error<DivergenceError>([&] { check_finite_gradients(p.list(), 4, *backend); },
                                  {"gradient of ip1.weight", "0 NaN and 1 inf", "iteration 4"});
    // f64 values near 1e200 are finite though their squares overflow.
    Parameter big{"big.weight", kernels::Tensor({2}, kernels::DType::f64), kernels::Tensor({2}, kernels::DType::f64)};
    big.grad.set(0, 1e200), big.grad.set(1, -3e200);
    EXPECT_NO_THROW(check_finite_gradients({&big}, 0, *backend));
  }
}

// Loss finite, gradient infinite: ip1's weights and biases are 0, so h = 0 and the logits are
// 0 (loss log 3) whatever the input; but dh = W2^T dy is about 1e10 and dW1 = dh^T x, with
// inputs of 1e30, is about 1e40: beyond f32.
constexpr const char* kOverflowModel =
    "model overflow\n"
    "input 1 4 4\n"
    "classes 3\n"
    "layer ip1 inner_product outputs=4 weight_init=constant:0 bias_init=constant:0\n"
    "layer ip2 inner_product outputs=3 weight_init=gaussian:1e10 bias_init=constant:0\n"
    "layer loss softmax_loss\n";

class StrategyGradientCheck : public ::testing::TestWithParam<const char*> {};

TEST_P(StrategyGradientCheck, InfiniteGradientWithFiniteLossNamesTheParameter) {
  const models::ModelSpec spec = testing::parse(kOverflowModel);
  auto backend = kernels::make_backend("reference");
  EngineOptions options;
  options.batch = 2;
  auto engine = make_engine(GetParam(), spec, *backend, options);
  testing::Batch batch = testing::random_batch(spec, 2, kernels::DType::f32, 3);
  // The loss itself is finite: evaluating the batch works.
  EXPECT_NEAR(engine->evaluate(batch.x, batch.labels).loss, std::log(3.0), 1e-5);
  for (std::int64_t i = 0; i < batch.x.numel(); ++i) batch.x.set(i, 1e30);
  EXPECT_NEAR(engine->evaluate(batch.x, batch.labels).loss, std::log(3.0), 1e-5);
  expect_error<DivergenceError>([&] { engine->train_step(batch.x, batch.labels, 5); },
                                {"gradient of ip1.weight is not finite", "iteration 5", "the loss was finite",
                                 "among its 64 values"});
  // Switched off, the step trains on and returns the finite loss.
  options.optimizer.check_gradients = false;
  auto unchecked = make_engine(GetParam(), spec, *backend, options);
  EXPECT_NEAR(unchecked->train_step(batch.x, batch.labels, 0), std::log(3.0), 1e-5);
}

INSTANTIATE_TEST_SUITE_P(EveryStrategy, StrategyGradientCheck, ::testing::Values("layerwise", "dynamic", "static"));

}  // namespace
}  // namespace ablate::graph
