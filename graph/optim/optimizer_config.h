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
//   warmup_cosine    lr = base * (t + 1) / warmup for t < warmup (linear warm-up), then
//                    base * (1 + cos(pi (t - warmup) / (max_iter - warmup))) / 2, 0 from max_iter
//                    (timm's and the ViT recipes' cosine schedule with warm-up, minimum 0)
struct LrPolicyConfig {
  std::string policy = "fixed";
  double base_lr = 0.01;
  double gamma = 0.0, power = 0.0;
  std::int64_t stepsize = 0;
  std::string stepvalues;  // comma-separated iterations, for multistep
  std::int64_t warmup = 0, max_iter = 0;  // warmup_cosine: warm-up iterations, where the cosine ends
};

struct OptimizerConfig {
  // caffe_sgd | torch_sgd | adam | adamw | gd; adamw: Adam with decoupled weight decay
  // (torch.optim.AdamW: w <- w (1 - lr weight_decay) before the Adam step; adam adds the decay to
  // the gradient instead, as an L2 term in the loss)
  std::string type = "caffe_sgd";
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
