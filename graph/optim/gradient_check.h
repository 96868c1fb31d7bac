// The check every strategy makes on its gradients before (static: right after) the update:
// a gradient with a NaN or infinite value, with a finite loss, stops the run with a
// DivergenceError naming the iteration, the parameter and what was found. The switch is
// OptimizerConfig::check_gradients (ablate run --check-gradients on|off, default on).
#pragma once

#include <cstdint>
#include <vector>

#include "graph/engine.h"
#include "kernels/backend.h"

namespace ablate::graph {

// Throws DivergenceError for the first parameter (in order) whose gradient is not finite:
//   "gradient of conv1.weight is not finite at iteration 12 (0-based; the loss was finite):
//    3 NaN and 1 inf among its 500 values"
// Cost: on the host, one vectorized pass over each gradient's exponent bits; on a device, one Backend::sum_squares per parameter (a reduction where the tensor
// lives: NaN or inf makes it non-finite) and, only then, a copy to the host. The values of a
// gradient found non-finite are counted on the host; a sum of squares that overflowed on
// finite values (|g| beyond 1e154) is no divergence.
void check_finite_gradients(const std::vector<Parameter*>& params, std::int64_t iteration, kernels::Backend& backend);

}  // namespace ablate::graph
