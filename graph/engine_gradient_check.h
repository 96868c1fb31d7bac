// The gradient check of any strategy through the Engine interface (`ablate gradcheck`): the
// analytic gradient of one parameter is what the engine's backward handed to the optimizer's
// update (caught at the update op: the layer-wise Solver's and the tape's shared Optimizer,
// the static graph's apply node), compared with central differences in f64 of the training
// loss, (L(w + eps e_i) - L(w - eps e_i)) / 2 eps, on sampled entries i. Every evaluation is a
// train_step at the same iteration (the same dropout masks) after which the parameters are
// put back, so the update never moves the point the differences are taken at.
// Weight decay is not part of the loss a train_step returns: check with it off (the caught
// gradient is taken before the update adds it, except Adam's, which adds it first).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "graph/engine.h"

namespace ablate::graph {

struct GradientSample {
  std::int64_t index = 0;  // flat element index in the parameter
  double analytic = 0, numeric = 0;
  double relative_error = 0;  // |a - n| / max(1e-8, |a| + |n|)
};

// (loss(data + eps e_i) - loss(data - eps e_i)) / 2 eps, with element i of the host f64 or f32
// tensor `data` set to each side in turn while `loss` runs, and put back after.
double central_difference(const std::function<double()>& loss, kernels::Tensor& data, std::int64_t i, double eps);

// `count` entries of parameter `name` spread evenly over it (all when it has fewer), for the
// batch x, labels (host) at `iteration`. The engine must run in f64 on a host backend. Throws
// std::invalid_argument naming the parameter when the engine has none of that name, or when
// its dtype or device does not allow the check.
std::vector<GradientSample> check_parameter_gradient(Engine& engine, const std::string& name, const kernels::Tensor& x,
                                                     const kernels::Tensor& labels, std::int64_t iteration, int count,
                                                     double eps = 1e-6);

}  // namespace ablate::graph
