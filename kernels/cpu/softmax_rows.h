// Softmax of one row, shared by softmax, log-softmax and softmax cross-entropy:
//   y[k] = exp(x[k] - m) / sum_j exp(x[j] - m) with m = max_k x[k] (no overflow), or
//   y[k] = x[k] - m - log sum_j exp(x[j] - m) for the log form. Sums in double.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace ablate::kernels::cpu {

// Writes softmax(x) to y (may alias x) and returns log sum_k exp(x[k]) (the log-partition).
template <class T> double softmax_row(const T* x, T* y, std::int64_t k) {
  const T m = *std::max_element(x, x + k);
  double total = 0;
  for (std::int64_t j = 0; j < k; ++j) {
    const T e = std::exp(x[j] - m);
    y[j] = e;
    total += e;
  }
  const T inv = static_cast<T>(1.0 / total);
  for (std::int64_t j = 0; j < k; ++j) y[j] *= inv;
  return static_cast<double>(m) + std::log(total);
}

// Writes log softmax(x) to y (may alias x).
template <class T> void log_softmax_row(const T* x, T* y, std::int64_t k) {
  const T m = *std::max_element(x, x + k);
  double total = 0;
  for (std::int64_t j = 0; j < k; ++j) total += std::exp(static_cast<double>(x[j] - m));
  const T shift = static_cast<T>(static_cast<double>(m) + std::log(total));
  for (std::int64_t j = 0; j < k; ++j) y[j] = x[j] - shift;
}

}  // namespace ablate::kernels::cpu
