// The median of a list of numbers, the one every figure of ablate's benchmarks takes: the middle
// value of the sorted list, or the mean of the two middle values when the count is even; NaN for
// an empty list. Failed samples are the caller's to count (experiments/sample_median.h does).
#pragma once

#include <algorithm>
#include <limits>
#include <vector>

namespace ablate::bench::run {

inline double median(std::vector<double> values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace ablate::bench::run
