// validate(): range checks of an OptimizerConfig before any training starts, so a bad preset
// or flag fails with the field, its value and the accepted range.
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "graph/optim/optimizer_config.h"
#include "graph/optim/step_values.h"

namespace ablate::graph {

namespace {

std::string number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", v);
  return buffer;
}

// Throws "<field> <value>: expected <expected>" unless ok.
void require(bool ok, const std::string& field, double value, const std::string& expected) {
  if (!ok) throw std::invalid_argument(field + " " + number(value) + ": expected " + expected);
}

void validate_policy(const LrPolicyConfig& lr) {
  require(std::isfinite(lr.base_lr) && lr.base_lr > 0, "base_lr", lr.base_lr, "a positive finite number");
  const std::string& p = lr.policy;
  if (p == "fixed") return;
  if (p == "inv") {
    require(std::isfinite(lr.gamma) && lr.gamma >= 0, "lr policy inv: gamma", lr.gamma, "a number >= 0");
    require(std::isfinite(lr.power) && lr.power >= 0, "lr policy inv: power", lr.power, "a number >= 0");
    return;
  }
  if (p == "step" || p == "exp_staircase" || p == "multistep") {
    require(std::isfinite(lr.gamma) && lr.gamma > 0, "lr policy " + p + ": gamma", lr.gamma,
            "a positive factor per step");
    if (p == "multistep") {
      if (lr.stepvalues.empty())
        throw std::invalid_argument("lr policy multistep: stepvalues is empty; expected iterations such as 5000,7000");
      parse_step_values(lr.stepvalues);
    } else {
      require(lr.stepsize > 0, "lr policy " + p + ": stepsize", static_cast<double>(lr.stepsize),
              "a positive number of iterations");
    }
    return;
  }
  if (p == "warmup_cosine") {
    require(lr.warmup >= 0, "lr policy warmup_cosine: warmup", static_cast<double>(lr.warmup), "a number of iterations >= 0");
    require(lr.max_iter > lr.warmup, "lr policy warmup_cosine: max_iter", static_cast<double>(lr.max_iter),
            "more iterations than warmup (" + std::to_string(lr.warmup) + "): where the cosine reaches 0");
    return;
  }
  if (p == "torch_decay") {
    require(std::isfinite(lr.gamma) && lr.gamma >= 0, "lr policy torch_decay: gamma (learningRateDecay)",
            lr.gamma, "a number >= 0");
    return;
  }
  throw std::invalid_argument("lr policy '" + p +
                              "' is not known; expected fixed, inv, step, multistep, exp_staircase, torch_decay or "
                              "warmup_cosine");
}

}  // namespace

void validate(const OptimizerConfig& c) {
  const std::string& t = c.type;
  if (t != "caffe_sgd" && t != "torch_sgd" && t != "adam" && t != "adamw" && t != "gd")
    throw std::invalid_argument("optimizer '" + t + "' is not known; expected caffe_sgd, torch_sgd, adam, adamw or gd");
  validate_policy(c.lr);
  require(std::isfinite(c.weight_decay) && c.weight_decay >= 0, "weight_decay", c.weight_decay, "a number >= 0");
  if (t == "caffe_sgd" || t == "torch_sgd")
    require(c.momentum >= 0 && c.momentum < 1, "momentum", c.momentum, "a number in [0, 1)");
  if (t == "gd")
    require(c.momentum == 0, "optimizer gd: momentum", c.momentum,
            "0 (gd is plain gradient descent; use torch_sgd or caffe_sgd for momentum)");
  if (t == "torch_sgd") {
    require(c.dampening >= 0 && c.dampening <= 1, "dampening", c.dampening, "a number in [0, 1]");
    if (c.nesterov && (c.momentum <= 0 || c.dampening != 0))
      throw std::invalid_argument("nesterov momentum needs momentum > 0 and dampening 0 (as Torch's optim.sgd); got momentum " +
                                  number(c.momentum) + ", dampening " + number(c.dampening));
  } else if (c.nesterov) {
    throw std::invalid_argument("nesterov is an option of torch_sgd only; optimizer is " + t);
  }
  if (t == "adam" || t == "adamw") {
    require(c.beta1 >= 0 && c.beta1 < 1, "adam beta1", c.beta1, "a number in [0, 1)");
    require(c.beta2 >= 0 && c.beta2 < 1, "adam beta2", c.beta2, "a number in [0, 1)");
    require(std::isfinite(c.epsilon) && c.epsilon > 0, "adam epsilon", c.epsilon, "a positive number");
  }
}

}  // namespace ablate::graph
