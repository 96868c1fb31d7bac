// im2row (kernels/cpu/im2col.h) is the transpose of im2col, its padded columns zero: checked
// against im2col on windows inside the image (the 8-wide block copies), clipped by asymmetric
// padding, strided, wider than 8 taps, and at the end of the image (where a block of 8 would
// read past it), in f32 and f64.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kernels/cpu/im2col.h"

namespace ablate::kernels::cpu {
namespace {

struct Case {
  std::int64_t c, h, w, kh, kw;
  int stride_h, stride_w, pad_top, pad_left, pad_bottom, pad_right;
};

ConvGeometry geometry_of(const Case& k) {
  ConvGeometry g;
  g.n = 1, g.c = k.c, g.h = k.h, g.w = k.w, g.k = 1, g.kh = k.kh, g.kw = k.kw;
  g.p.stride_h = k.stride_h, g.p.stride_w = k.stride_w;
  g.p.pad_top = k.pad_top, g.p.pad_left = k.pad_left, g.p.pad_bottom = k.pad_bottom, g.p.pad_right = k.pad_right;
  g.oh = (k.h + k.pad_top + k.pad_bottom - k.kh) / k.stride_h + 1;
  g.ow = (k.w + k.pad_left + k.pad_right - k.kw) / k.stride_w + 1;
  return g;
}

template <class T> void expect_transpose_of_im2col(const Case& k) {
  const ConvGeometry g = geometry_of(k);
  std::vector<T> x(static_cast<std::size_t>(g.in_size()));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<T>(1 + i % 97);  // no zero: padding shows
  const std::int64_t taps = g.col_rows(), pixels = g.pixels(), ld = taps + 3;
  std::vector<T> col(static_cast<std::size_t>(taps * pixels));
  im2col(g, x.data(), col.data(), pixels);
  std::vector<T> rows(static_cast<std::size_t>(pixels * ld), std::numeric_limits<T>::quiet_NaN());
  im2row(g, x.data(), rows.data(), ld);
  for (std::int64_t p = 0; p < pixels; ++p) {
    for (std::int64_t r = 0; r < taps; ++r)
      ASSERT_EQ(rows[static_cast<std::size_t>(p * ld + r)], col[static_cast<std::size_t>(r * pixels + p)])
          << "pixel " << p << " tap " << r << " of " << k.c << "x" << k.h << "x" << k.w << " kernel " << k.kh << "x" << k.kw;
    for (std::int64_t r = taps; r < ld; ++r) ASSERT_EQ(rows[static_cast<std::size_t>(p * ld + r)], T(0)) << "padded column " << r;
  }
}

const Case kCases[] = {
    {20, 12, 12, 5, 5, 1, 1, 0, 0, 0, 0},  // LeNet's conv2: every window inside
    {1, 28, 28, 5, 5, 1, 1, 0, 0, 0, 0},   // LeNet's conv1: one channel, the last windows at the image's end
    {3, 9, 11, 3, 3, 2, 2, 1, 1, 1, 1},    // strided, clipped on every side
    {2, 7, 8, 3, 4, 1, 2, 2, 0, 0, 3},     // asymmetric padding
    {2, 6, 14, 2, 10, 1, 1, 0, 1, 0, 1},   // runs wider than a block of 8
    {1, 3, 3, 3, 3, 1, 1, 0, 0, 0, 0},     // one pixel, its block past the image
};

TEST(Im2row, IsTheTransposeOfIm2colWithZeroPadding) {
  for (const Case& k : kCases) {
    expect_transpose_of_im2col<float>(k);
    expect_transpose_of_im2col<double>(k);
  }
}

}  // namespace
}  // namespace ablate::kernels::cpu
