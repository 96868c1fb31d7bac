// NaN and inf among values in host memory: what a weight gradient folded into its update
// (Backend::linear_backward_weights_update) checks of each band before applying it, on the CPU
// backends (kernels/cpu/linear_update.cpp) and in the unfused default
// (kernels/contract/optimizer_ops.cpp).
#pragma once

#include <cmath>
#include <cstdint>

namespace ablate::kernels {

template <class T>
std::int64_t count_non_finite(const T* values, std::int64_t n) {
  std::int64_t count = 0;
  for (std::int64_t i = 0; i < n; ++i) count += std::isfinite(values[i]) ? 0 : 1;
  return count;
}

}  // namespace ablate::kernels
