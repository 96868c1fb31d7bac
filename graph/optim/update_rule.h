// The update of one parameter by an optimizer's rule, through the Backend's update ops; the
// one piece of update math both the shared Optimizer (layer-wise and dynamic strategies) and
// the static graph's apply nodes (TF's ApplyMomentum, ApplyAdam) run:
//   caffe_sgd  Caffe's SGDSolver: caffe_sgd_update(w, g, history; lr, momentum, decay)
//   torch_sgd  Torch's optim.sgd: torch_sgd_update(w, g, velocity; lr, momentum, dampening,
//              decay, nesterov, the velocity starting as g on the first update)
//   gd         torch_sgd with momentum 0, dampening 0, no Nesterov
//   adam       TF's AdamOptimizer with t = iteration + 1; a weight decay is added to the
//              gradient first (g += decay w: L2 in the loss, as TF's models write it)
// Each parameter learns at rate * lr_mult with weight decay weight_decay * decay_mult.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "graph/optim/optimizer_config.h"
#include "kernels/backend.h"

namespace ablate::graph {

struct UpdateStep {
  double rate = 0;             // the learning rate of the iteration (before lr_mult)
  std::int64_t iteration = 0;  // 0-based
  bool first_update = false;   // no update applied yet
};

// State tensors per parameter: adam 2 (m, v); caffe_sgd, torch_sgd and gd 1 (history or
// velocity).
int optimizer_state_count(const std::string& type);

// The update as one Backend op's parameters (kernels::UpdateParams), for an op that applies it
// itself (Backend::linear_backward_weights_update); none where the rule takes more than that
// op: adam and adamw with a weight decay (the decay's own pass over w or g first).
std::optional<kernels::UpdateParams> update_params(const OptimizerConfig& config, const UpdateStep& step, double lr_mult,
                                                   double decay_mult);

// Updates `value` in place from `grad` (which adam's weight decay modifies); `state` holds
// optimizer_state_count(config.type) tensors of the parameter's shape.
void apply_update(kernels::Backend& backend, const OptimizerConfig& config, const UpdateStep& step, double lr_mult,
                  double decay_mult, kernels::Tensor& value, kernels::Tensor& grad, kernels::Tensor* const* state);

}  // namespace ablate::graph
