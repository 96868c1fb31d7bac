// Sums of a run of values in double, with eight independent accumulators so that the loop
// vectorizes (one accumulator would serialise on the add latency). The order is fixed, so a
// given input always gives the same bits.
#pragma once

#include <cstdint>

namespace ablate::kernels::cpu {

template <class T> double sum_run(const T* p, std::int64_t n) {
  double acc[8] = {};
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int l = 0; l < 8; ++l) acc[l] += static_cast<double>(p[i + l]);
  double total = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
  for (; i < n; ++i) total += static_cast<double>(p[i]);
  return total;
}

template <class T> double sum_squares_run(const T* p, std::int64_t n) {
  double acc[8] = {};
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int l = 0; l < 8; ++l) {
      double v = static_cast<double>(p[i + l]);
      acc[l] += v * v;
    }
  double total = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
  for (; i < n; ++i) total += static_cast<double>(p[i]) * static_cast<double>(p[i]);
  return total;
}

}  // namespace ablate::kernels::cpu
