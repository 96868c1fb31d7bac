// transpose_into (kernels/cpu/transpose.h): every element where it belongs, for matrices of
// whole register blocks, of edges past them on either side, smaller than a block, and with
// leading dimensions past the edge (the padding of dst left untouched), in f32 and f64.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/cpu/transpose.h"

namespace ablate::kernels::cpu {
namespace {

template <class T> void check(std::int64_t rows, std::int64_t cols) {
  const std::int64_t lds = cols + 3, ldd = rows + 5;
  std::vector<T> src(static_cast<std::size_t>(rows * lds)), dst(static_cast<std::size_t>(cols * ldd), T(-1));
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<T>(i);
  transpose_into(src.data(), rows, cols, lds, dst.data(), ldd);
  for (std::int64_t c = 0; c < cols; ++c)
    for (std::int64_t r = 0; r < ldd; ++r)
      ASSERT_EQ(dst[static_cast<std::size_t>(c * ldd + r)], r < rows ? src[static_cast<std::size_t>(r * lds + c)] : T(-1))
          << rows << "x" << cols << ": row " << r << ", column " << c;
}

TEST(Transpose, EveryElementLandsWhereItBelongs) {
  const std::int64_t shapes[][2] = {{64, 64}, {50, 64}, {20, 576}, {500, 50}, {25, 20}, {3, 7}, {17, 33}, {1, 1}};
  for (const auto& s : shapes) {
    check<float>(s[0], s[1]);
    check<double>(s[0], s[1]);
  }
}

}  // namespace
}  // namespace ablate::kernels::cpu
