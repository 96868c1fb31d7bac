// Optimizer: applies one update to a list of graph::Parameter, the same for every strategy,
// holding each parameter's state; the update of one parameter is graph/optim/update_rule.h's,
// which the static graph's apply nodes run too. It reproduces the solvers of the four
// frameworks through the Backend's update ops:
//   caffe_sgd  Caffe's SGDSolver (history h: h = m h + lr (g + wd w); w -= h)
//   torch_sgd  Torch's optim.sgd (velocity starts as g on the first update)
//   gd         plain gradient descent (Theano's tutorials, TF's GradientDescentOptimizer):
//              torch_sgd with momentum 0
//   adam       TF's AdamOptimizer with t = iteration + 1
// Each parameter learns at lr * lr_mult with weight decay weight_decay * decay_mult (Caffe's
// per-blob multipliers). Adam has no decay term of its own: a weight decay is added to the
// gradient first (L2 in the loss, as TF's models write it).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "graph/engine.h"
#include "graph/optim/optimizer_config.h"
#include "kernels/backend.h"

namespace ablate::graph {

class Optimizer {
 public:
  // Validates `config` (throws std::invalid_argument naming the bad field).
  Optimizer(const OptimizerConfig& config, kernels::Backend& backend);

  const OptimizerConfig& config() const { return config_; }
  double learning_rate(std::int64_t iteration) const;

  // One update of every parameter from its `grad` (which may be modified) at the learning
  // rate of `iteration` (0-based). With config.check_gradients, a gradient holding NaN or inf
  // (after the gradient hook) throws graph::DivergenceError before any parameter changes. The state tensors are allocated on the first call in the
  // parameters' shapes; later calls must pass the same parameters in the same order.
  void step(const std::vector<Parameter*>& params, std::int64_t iteration);

  // Called by step() with the parameters before any update, so it may rewrite their `grad`:
  // data-parallel training averages the gradients across ranks here (graph/distributed/).
  using GradientHook = std::function<void(const std::vector<Parameter*>&)>;
  void set_gradient_hook(GradientHook hook) { gradient_hook_ = std::move(hook); }

  // How many updates have been applied.
  std::int64_t updates() const { return updates_; }
  // For a resumed run: allocates the state for `params` (zeros) if not yet there, so that
  // state(i) can be overwritten from a checkpoint, and sets the count of updates applied.
  void prepare_resume(const std::vector<Parameter*>& params, std::int64_t updates);
  // The state of parameter i: caffe_sgd {history}, torch_sgd and gd {velocity}, adam {m, v};
  // empty before the first step. For checkpoints and tests.
  std::vector<kernels::Tensor*> state(std::size_t i);

 private:
  struct Slot {
    kernels::Tensor first, second;  // history / velocity / m; v (adam only)
  };
  void allocate_state(const std::vector<Parameter*>& params);
  void check_same_parameters(const std::vector<Parameter*>& params) const;

  OptimizerConfig config_;
  kernels::Backend& backend_;
  std::vector<Slot> slots_;
  std::int64_t updates_ = 0;
  GradientHook gradient_hook_;
};

}  // namespace ablate::graph
