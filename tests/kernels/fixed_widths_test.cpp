// The chunkings of kernels/cpu/fixed_widths.h: in_fixed_widths covers [0, n) once in chunks of 16,
// 8, 4, 2 and 1; in_overlapping_widths covers it with chunks of one width each (16 from n = 16
// on), ending at n, an item at most twice.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/cpu/fixed_widths.h"

namespace ablate::kernels::cpu {
namespace {

TEST(FixedWidths, EveryItemOnceInDescendingWidths) {
  for (std::int64_t n = 0; n <= 40; ++n) {
    std::vector<int> seen(static_cast<std::size_t>(n), 0);
    int last_width = 16;
    in_fixed_widths(n, [&](auto width, std::int64_t first) {
      constexpr int W = decltype(width)::value;
      EXPECT_LE(W, last_width) << "n " << n;
      last_width = W;
      for (std::int64_t i = first; i < first + W; ++i) ++seen[static_cast<std::size_t>(i)];
    });
    for (std::int64_t i = 0; i < n; ++i) EXPECT_EQ(seen[static_cast<std::size_t>(i)], 1) << "n " << n << " item " << i;
  }
}

TEST(FixedWidths, OverlappingChunksCoverEachItemOnceOrTwiceWithOneWidth) {
  for (std::int64_t n = 0; n <= 40; ++n) {
    std::vector<int> seen(static_cast<std::size_t>(n), 0);
    std::vector<int> widths;
    std::int64_t end = 0;
    in_overlapping_widths(n, [&](auto width, std::int64_t first) {
      constexpr int W = decltype(width)::value;
      widths.push_back(W);
      ASSERT_GE(first, 0);
      ASSERT_LE(first + W, n) << "n " << n;
      end = std::max(end, first + W);
      for (std::int64_t i = first; i < first + W; ++i) ++seen[static_cast<std::size_t>(i)];
    });
    EXPECT_EQ(end, n);
    for (std::int64_t i = 0; i < n; ++i) {
      EXPECT_GE(seen[static_cast<std::size_t>(i)], 1) << "n " << n << " item " << i;
      EXPECT_LE(seen[static_cast<std::size_t>(i)], 2) << "n " << n << " item " << i;
    }
    for (int w : widths) EXPECT_EQ(w, widths.front()) << "n " << n;
    if (n >= 16) {
      EXPECT_EQ(widths.front(), 16) << "n " << n;
    } else if (n > 0) {
      EXPECT_LE(widths.size(), 2u) << "n " << n;  // 15: 8 + 8, not 8, 4, 2, 1
    }
  }
}

}  // namespace
}  // namespace ablate::kernels::cpu
