// The gradient check of every strategy (gradient_check.h).
#include "graph/optim/gradient_check.h"

#include <cmath>
#include <cstdint>
#include <cstring>
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

// Whether all of v is finite: a NaN or inf has every exponent bit set (IEEE 754). Integer
// tests and an OR, so the compiler vectorizes the loop (a floating-point sum it may not reorder).
template <class T, class Bits, Bits kExponent>
bool all_finite(const T* v, std::int64_t n) {
  static_assert(sizeof(T) == sizeof(Bits));
  Bits any = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    Bits b;
    std::memcpy(&b, v + i, sizeof b);
    any |= static_cast<Bits>((b & kExponent) == kExponent);
  }
  return any == 0;
}

bool all_finite(const kernels::Tensor& g) {
  if (g.dtype() == kernels::DType::f64)
    return all_finite<double, std::uint64_t, 0x7FF0000000000000ull>(g.data<double>(), g.numel());
  return all_finite<float, std::uint32_t, 0x7F800000u>(g.data<float>(), g.numel());
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
    if (g.device() == kernels::Device::cpu) {
      if (all_finite(g)) continue;
    } else if (std::isfinite(backend.sum_squares(g))) {
      continue;
    }
    const NonFinite c = count_non_finite(g, backend);
    if (c.nan == 0 && c.inf == 0) continue;  // only the sum of squares overflowed
    throw DivergenceError("gradient of " + p->name + " is not finite at iteration " + std::to_string(iteration) +
                          " (0-based; the loss was finite): " + std::to_string(c.nan) + " NaN and " +
                          std::to_string(c.inf) + " inf among its " + std::to_string(g.numel()) +
                          " values");
  }
}

}  // namespace ablate::graph
