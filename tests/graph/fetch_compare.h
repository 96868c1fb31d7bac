// Comparing the fetches of two sessions of one graph (a static pass on and off).
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/tensor.h"

namespace ablate::graph::testing {

// Every element of each fetch in a within `bound` of b's, relative to max(1, |b|).
inline void expect_fetches_close(const std::vector<kernels::Tensor>& a, const std::vector<kernels::Tensor>& b,
                                 double bound) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].shape(), b[i].shape()) << "fetch " << i;
    double worst = 0;
    for (std::int64_t j = 0; j < a[i].numel(); ++j)
      worst = std::max(worst, std::abs(a[i].at(j) - b[i].at(j)) / std::max(1.0, std::abs(b[i].at(j))));
    EXPECT_LE(worst, bound) << "fetch " << i;
  }
}

}  // namespace ablate::graph::testing
