// The power of LRN's scale, shared by the NCHW loops (lrn.cpp) and the channel-blocked ones
// (lrn_blocked.cpp).
#pragma once

#include <cmath>
#include <cstdint>

namespace ablate::kernels::cpu {

// out[i] = scale[i]^-beta for i < count. beta = 0.75 (Caffe's and TF's CIFAR models) takes two
// square roots and a division, which vectorise, instead of std::pow (exp and log per element, a
// scalar call): scale^-0.75 = 1 / (sqrt(scale) * sqrt(sqrt(scale))), the results differing from
// std::pow's by rounding.
template <class T> void pow_minus_beta(std::int64_t count, const T* scale, T beta, T* out) {
  if (beta == T(0.75)) {
#pragma omp simd
    for (std::int64_t i = 0; i < count; ++i) {
      const T root = std::sqrt(scale[i]);
      out[i] = T(1) / (root * std::sqrt(root));
    }
    return;
  }
  for (std::int64_t i = 0; i < count; ++i) out[i] = std::pow(scale[i], -beta);
}

}  // namespace ablate::kernels::cpu
