// The gradient check of every strategy (gradient_check.h).
#include "graph/optim/gradient_check.h"

#include <cmath>
#include <string>

#include "graph/optim/divergence_error.h"

namespace ablate::graph {

namespace {

struct NonFinite {
  std::int64_t nan = 0, inf = 0;
};

template <class T>
NonFinite count_non_finite(const T* v, std::int64_t n) {
  NonFinite c;
  for (std::int64_t i = 0; i < n; ++i) {
    c.nan += std::isnan(v[i]);
    c.inf += std::isinf(v[i]);
  }
  return c;
}

NonFinite count_non_finite(const kernels::Tensor& grad, kernels::Backend& backend) {
  kernels::Tensor host = grad;
  if (grad.device() != kernels::Device::cpu) {
    host = kernels::Tensor(grad.shape(), grad.dtype());
    backend.copy(grad, host);
  }
  if (grad.dtype() == kernels::DType::f64) return count_non_finite(host.data<double>(), host.numel());
  return count_non_finite(host.data<float>(), host.numel());
}

}  // namespace

void check_finite_gradients(const std::vector<Parameter*>& params, std::int64_t iteration, kernels::Backend& backend) {
  for (const Parameter* p : params) {
    const kernels::Tensor& g = p->grad;
    if (g.empty() || (g.dtype() != kernels::DType::f32 && g.dtype() != kernels::DType::f64)) continue;
    if (std::isfinite(backend.sum_squares(g))) continue;
    const NonFinite c = count_non_finite(g, backend);
    if (c.nan == 0 && c.inf == 0) continue;  // only the sum of squares overflowed
    throw DivergenceError("gradient of " + p->name + " is not finite at iteration " + std::to_string(iteration) +
                          " (0-based; the loss was finite): " + std::to_string(c.nan) + " NaN and " +
                          std::to_string(c.inf) + " inf among its " + std::to_string(g.numel()) +
                          " values");
  }
}

}  // namespace ablate::graph
