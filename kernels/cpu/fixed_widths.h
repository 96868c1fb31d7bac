// Loops over a short run of items in chunks of compile-time widths, so that the loop over one
// chunk is vector code whatever vector width the compiler prefers.
//
// Why: a loop whose trip count is known only at run time is vectorized at the preferred width
// with a narrower epilogue and a scalar remainder. GCC 12 at -march=native prefers 256-bit
// vectors on the CPUs it knows (Sapphire Rapids) but 512-bit ones on a CPU newer than itself
// (an Emerald Rapids Xeon, AMD Zen 5 fall back to -mtune=generic): LeNet's pooling rows of 4 and
// 12 cells then ran as the remainder, a compare-and-branch per cell on random data, 10-17x
// slower (ablate_micro pool/lenet_pool2 forward 36 -> 705 us). A chunk of compile-time width W
// has its trip count in the type and is vectorized (or fully unrolled) at any width.
#pragma once

#include <cstdint>
#include <type_traits>

namespace ablate::kernels::cpu {

// Runs body(width, first) over [0, n): chunks of 16 while 16 are left, then one chunk each of
// 8, 4, 2 and 1 where that many are left. `width` is std::integral_constant<int, W>: the body
// reads W as decltype(width)::value and loops over items [first, first + W).
template <class F> void in_fixed_widths(std::int64_t n, F&& body) {
  std::int64_t first = 0;
  for (; n - first >= 16; first += 16) body(std::integral_constant<int, 16>{}, first);
  auto one = [&](auto width) {
    if (n - first >= decltype(width)::value) {
      body(width, first);
      first += decltype(width)::value;
    }
  };
  one(std::integral_constant<int, 8>{});
  one(std::integral_constant<int, 4>{});
  one(std::integral_constant<int, 2>{});
  one(std::integral_constant<int, 1>{});
}

// As in_fixed_widths, for a body whose items may run twice (each writes what it computes, the
// same both times): chunks of 16, then the rest as one chunk of the widest width that fits
// ending at n, overlapping the chunk before; a run shorter than 16 as two chunks of the widest
// width that fits, the second ending at n. 15 items: 8 + 8 (one twice) instead of 8, 4, 2, 1.
template <class F> void in_overlapping_widths(std::int64_t n, F&& body) {
  if (n <= 0) return;
  auto twice = [&](auto width) {  // n in [W, 2W): items [0, W) and [n - W, n)
    constexpr int W = decltype(width)::value;
    body(width, std::int64_t{0});
    if (n > W) body(width, n - W);
  };
  if (n >= 16) {
    std::int64_t first = 0;
    for (; n - first >= 16; first += 16) body(std::integral_constant<int, 16>{}, first);
    if (first < n) body(std::integral_constant<int, 16>{}, n - 16);
  } else if (n >= 8) {
    twice(std::integral_constant<int, 8>{});
  } else if (n >= 4) {
    twice(std::integral_constant<int, 4>{});
  } else if (n >= 2) {
    twice(std::integral_constant<int, 2>{});
  } else {
    body(std::integral_constant<int, 1>{}, std::int64_t{0});
  }
}

}  // namespace ablate::kernels::cpu
