// The shared Optimizer against the update rules written out by hand: Caffe's SGDSolver,
// Torch's optim.sgd (velocity = g on the first update), plain gd and TF's Adam (t =
// iteration + 1), with per-parameter lr_mult and decay_mult.
#include <cmath>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "graph/optim/optimizer.h"
#include "graph_test_util.h"
#include "kernels/registry.h"

namespace ablate::graph {
namespace {

using testing::expect_error;

constexpr int kSize = 3;
const double kStart[kSize] = {1.0, -2.0, 0.5};
// Gradient of step s for element i.
double gradient(int s, int i) { return 0.3 * (i + 1) - 0.2 * s + 0.05 * i * s; }

struct Trajectory {
  std::vector<std::vector<double>> weights;  // after each step
};

// Runs 3 optimizer steps from iteration `first` on two parameters: "a" (mults 1, 1) and
// "b" (lr_mult 2, decay_mult 0.5), returning parameter b's weights after each step.
Trajectory run_optimizer(const OptimizerConfig& config, std::int64_t first) {
  auto backend = kernels::make_backend("reference");
  Parameter a{"a.weight", kernels::Tensor({kSize}, kernels::DType::f64), kernels::Tensor({kSize}, kernels::DType::f64)};
  Parameter b{"b.bias", kernels::Tensor({kSize}, kernels::DType::f64), kernels::Tensor({kSize}, kernels::DType::f64),
              2.0, 0.5};
  for (int i = 0; i < kSize; ++i) a.value.set(i, kStart[i]), b.value.set(i, kStart[i]);
  Optimizer optimizer(config, *backend);
  Trajectory run;
  for (int s = 0; s < 3; ++s) {
    for (int i = 0; i < kSize; ++i) a.grad.set(i, gradient(s, i)), b.grad.set(i, gradient(s, i));
    optimizer.step({&a, &b}, first + s);
    std::vector<double> w;
    for (int i = 0; i < kSize; ++i) w.push_back(b.value.at(i));
    run.weights.push_back(w);
  }
  EXPECT_EQ(optimizer.updates(), 3);
  return run;
}

OptimizerConfig make_config(const std::string& type) {
  OptimizerConfig c;
  c.type = type;
  c.lr.policy = "inv";
  c.lr.base_lr = 0.1;
  c.lr.gamma = 0.5;
  c.lr.power = 0.75;
  c.momentum = type == "gd" ? 0.0 : 0.9;
  c.weight_decay = 0.01;
  c.dampening = 0.2;
  return c;
}

double lr_at(std::int64_t t) { return 0.1 * std::pow(1 + 0.5 * static_cast<double>(t), -0.75); }

void expect_weights(const Trajectory& run, const std::vector<std::vector<double>>& expected) {
  for (int s = 0; s < 3; ++s)
    for (int i = 0; i < kSize; ++i) EXPECT_NEAR(run.weights[s][i], expected[s][i], 1e-14) << "step " << s << " i " << i;
}

TEST(Optimizer, CaffeSgdMatchesSgdSolverWithMultipliers) {
  const std::int64_t first = 5;
  Trajectory run = run_optimizer(make_config("caffe_sgd"), first);
  std::vector<std::vector<double>> expected;
  double w[kSize], h[kSize] = {0, 0, 0};
  for (int i = 0; i < kSize; ++i) w[i] = kStart[i];
  for (int s = 0; s < 3; ++s) {
    const double lr = lr_at(first + s) * 2.0, decay = 0.01 * 0.5;
    for (int i = 0; i < kSize; ++i) {
      h[i] = 0.9 * h[i] + lr * (gradient(s, i) + decay * w[i]);
      w[i] -= h[i];
    }
    expected.push_back({w[0], w[1], w[2]});
  }
  expect_weights(run, expected);
}

TEST(Optimizer, TorchSgdStartsVelocityFromTheFirstGradient) {
  Trajectory run = run_optimizer(make_config("torch_sgd"), 0);
  std::vector<std::vector<double>> expected;
  double w[kSize], v[kSize] = {0, 0, 0};
  for (int i = 0; i < kSize; ++i) w[i] = kStart[i];
  for (int s = 0; s < 3; ++s) {
    const double lr = lr_at(s) * 2.0, decay = 0.01 * 0.5;
    for (int i = 0; i < kSize; ++i) {
      const double g = gradient(s, i) + decay * w[i];
      v[i] = s == 0 ? g : 0.9 * v[i] + (1 - 0.2) * g;
      w[i] -= lr * v[i];
    }
    expected.push_back({w[0], w[1], w[2]});
  }
  expect_weights(run, expected);
}

TEST(Optimizer, GdIsPlainGradientDescent) {
  Trajectory run = run_optimizer(make_config("gd"), 2);
  std::vector<std::vector<double>> expected;
  double w[kSize];
  for (int i = 0; i < kSize; ++i) w[i] = kStart[i];
  for (int s = 0; s < 3; ++s) {
    const double lr = lr_at(2 + s) * 2.0, decay = 0.01 * 0.5;
    for (int i = 0; i < kSize; ++i) w[i] -= lr * (gradient(s, i) + decay * w[i]);
    expected.push_back({w[0], w[1], w[2]});
  }
  expect_weights(run, expected);
}

TEST(Optimizer, AdamUsesTEqualsIterationPlusOne) {
  OptimizerConfig c = make_config("adam");
  c.lr.policy = "fixed";
  c.lr.base_lr = 0.01;
  const std::int64_t first = 10;
  Trajectory run = run_optimizer(c, first);
  std::vector<std::vector<double>> expected;
  double w[kSize], m[kSize] = {0, 0, 0}, v[kSize] = {0, 0, 0};
  for (int i = 0; i < kSize; ++i) w[i] = kStart[i];
  for (int s = 0; s < 3; ++s) {
    const double t = static_cast<double>(first + s + 1);
    const double lr_t = 0.01 * 2.0 * std::sqrt(1 - std::pow(0.999, t)) / (1 - std::pow(0.9, t));
    for (int i = 0; i < kSize; ++i) {
      const double g = gradient(s, i) + 0.01 * 0.5 * w[i];  // weight decay as L2 in the loss
      m[i] = 0.9 * m[i] + 0.1 * g;
      v[i] = 0.999 * v[i] + 0.001 * g * g;
      w[i] -= lr_t * m[i] / (std::sqrt(v[i]) + 1e-8);
    }
    expected.push_back({w[0], w[1], w[2]});
  }
  expect_weights(run, expected);
}

// torch.optim.AdamW: w <- w (1 - lr wd) first, then Adam on the plain gradient (the decay not in
// m and v); parameter b's lr_mult 2 and decay_mult 0.5 scale lr and the decay.
TEST(Optimizer, AdamwDecaysTheWeightsApartFromTheGradient) {
  OptimizerConfig c = make_config("adamw");
  c.lr.policy = "fixed";
  c.lr.base_lr = 0.01;
  c.weight_decay = 0.1;
  const std::int64_t first = 4;
  Trajectory run = run_optimizer(c, first);
  std::vector<std::vector<double>> expected;
  double w[kSize], m[kSize] = {0, 0, 0}, v[kSize] = {0, 0, 0};
  for (int i = 0; i < kSize; ++i) w[i] = kStart[i];
  for (int s = 0; s < 3; ++s) {
    const double t = static_cast<double>(first + s + 1);
    const double lr = 0.01 * 2.0, lr_t = lr * std::sqrt(1 - std::pow(0.999, t)) / (1 - std::pow(0.9, t));
    for (int i = 0; i < kSize; ++i) {
      w[i] *= 1 - lr * 0.1 * 0.5;
      const double g = gradient(s, i);
      m[i] = 0.9 * m[i] + 0.1 * g;
      v[i] = 0.999 * v[i] + 0.001 * g * g;
      w[i] -= lr_t * m[i] / (std::sqrt(v[i]) + 1e-8);
    }
    expected.push_back({w[0], w[1], w[2]});
  }
  expect_weights(run, expected);
}

TEST(Optimizer, StateHasTheParameterShapesAndPersists) {
  auto backend = kernels::make_backend("reference");
  Parameter p{"w", kernels::Tensor({2, 3}), kernels::Tensor({2, 3})};
  OptimizerConfig c = make_config("adam");
  Optimizer optimizer(c, *backend);
  EXPECT_TRUE(optimizer.state(0).empty());
  optimizer.step({&p}, 0);
  auto state = optimizer.state(0);
  ASSERT_EQ(state.size(), 2u);
  EXPECT_EQ(state[0]->shape(), (kernels::Shape{2, 3}));
  EXPECT_EQ(state[1]->shape(), (kernels::Shape{2, 3}));
  EXPECT_THROW(optimizer.state(1), std::out_of_range);
}

TEST(Optimizer, RejectsBadConfigAndChangedParameters) {
  auto backend = kernels::make_backend("reference");
  OptimizerConfig bad;
  bad.type = "sgd";
  expect_error<std::invalid_argument>([&] { Optimizer(bad, *backend); }, {"optimizer 'sgd'"});
  Optimizer optimizer(make_config("caffe_sgd"), *backend);
  Parameter p{"p", kernels::Tensor({4}), kernels::Tensor({4})};
  Parameter q{"q", kernels::Tensor({5}), kernels::Tensor({5})};
  Parameter wrong_grad{"r", kernels::Tensor({4}), kernels::Tensor({3})};
  optimizer.step({&p}, 0);
  expect_error<std::invalid_argument>([&] { optimizer.step({&p, &q}, 1); }, {"2 parameters", "holds 1"});
  expect_error<std::invalid_argument>([&] { optimizer.step({&q}, 1); }, {"q", "[5]", "[4]"});
  Optimizer fresh(make_config("caffe_sgd"), *backend);
  expect_error<std::invalid_argument>([&] { fresh.step({&wrong_grad}, 0); }, {"gradient of r", "[3]"});
}

}  // namespace
}  // namespace ablate::graph
