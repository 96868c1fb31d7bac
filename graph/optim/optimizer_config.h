// Optimizer and learning-rate policy settings, shared by every strategy. The update math
// itself is a Backend op (caffe_sgd_update, torch_sgd_update, adam_update).
#pragma once

#include <cstdint>
#include <string>

namespace ablate::graph {

// Learning rate at iteration t (0-based), as Caffe's SGDSolver::GetLearningRate and the
// others define them:
//   fixed            lr = base
//   inv              lr = base * (1 + gamma * t)^(-power)
//   step             lr = base * gamma^floor(t / stepsize)
//   multistep        lr = base * gamma^(number of steps in `stepvalues` that are <= t)
//   exp_staircase    lr = base * gamma^floor(t / stepsize)   (TF exponential_decay, staircase)
//   torch_decay      lr = base / (1 + t * gamma)              (optim.sgd learningRateDecay)
struct LrPolicyConfig {
  std::string policy = "fixed";
  double base_lr = 0.01;
  double gamma = 0.0, power = 0.0;
  std::int64_t stepsize = 0;
  std::string stepvalues;  // comma-separated iterations, for multistep
};

struct OptimizerConfig {
  std::string type = "caffe_sgd";  // caffe_sgd | torch_sgd | adam | gd
  LrPolicyConfig lr;
  double momentum = 0.0, weight_decay = 0.0, dampening = 0.0;
  bool nesterov = false;
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
  // Stop with a DivergenceError when a gradient holds NaN or inf (graph/optim/gradient_check.h).
  bool check_gradients = true;
};

// Throws naming the policy or value when it is unknown or out of range.
void validate(const OptimizerConfig& config);
double learning_rate(const LrPolicyConfig& config, std::int64_t iteration);

}  // namespace ablate::graph
