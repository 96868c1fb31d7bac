// Learning-rate policies: Caffe's SGDSolver::GetLearningRate (fixed, inv, step, multistep),
// TensorFlow's exponential_decay with staircase=True, and Torch optim.sgd's
// learningRateDecay, and a transformer's linear warm-up then cosine decay (timm, the ViT and
// BERT recipes). Formulas in graph/optim/optimizer_config.h.
#include <cmath>
#include <stdexcept>

#include "graph/optim/optimizer_config.h"
#include "graph/optim/step_values.h"

namespace ablate::graph {

double learning_rate(const LrPolicyConfig& config, std::int64_t iteration) {
  if (iteration < 0)
    throw std::invalid_argument("learning rate asked for iteration " + std::to_string(iteration) +
                                "; expected an iteration >= 0");
  const double t = static_cast<double>(iteration);
  const std::string& policy = config.policy;
  if (policy == "fixed") return config.base_lr;
  if (policy == "inv") return config.base_lr * std::pow(1.0 + config.gamma * t, -config.power);
  if (policy == "step" || policy == "exp_staircase") {
    if (config.stepsize <= 0)
      throw std::invalid_argument("lr policy " + policy + ": stepsize " + std::to_string(config.stepsize) +
                                  " must be positive");
    return config.base_lr * std::pow(config.gamma, static_cast<double>(iteration / config.stepsize));
  }
  if (policy == "multistep") {
    int passed = 0;
    for (std::int64_t value : parse_step_values(config.stepvalues))
      if (value <= iteration) ++passed;
    return config.base_lr * std::pow(config.gamma, passed);
  }
  if (policy == "torch_decay") return config.base_lr / (1.0 + t * config.gamma);
  if (policy == "warmup_cosine") {
    if (iteration < config.warmup) return config.base_lr * (t + 1) / static_cast<double>(config.warmup);
    if (iteration >= config.max_iter) return 0.0;
    const double progress = (t - static_cast<double>(config.warmup)) / static_cast<double>(config.max_iter - config.warmup);
    return config.base_lr * 0.5 * (1.0 + std::cos(M_PI * progress));
  }
  throw std::invalid_argument("lr policy '" + policy +
                              "' is not known; expected fixed, inv, step, multistep, exp_staircase, torch_decay or "
                              "warmup_cosine");
}

}  // namespace ablate::graph
