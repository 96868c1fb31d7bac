// tiled_gemm (kernels/cpu/tiled_gemm.h) against a plain triple loop: every tile shape and its
// last rows, columns past the last whole vector, depth blocks after the first (k > 128), op(A)
// transposed, alpha and beta, and beta = 0 not reading C (NaN there must not reach the result);
// tiled_gemm_columns against the product over im2col's columns, tiled_gemm_add_columns against
// col2im of the transposed product.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "kernels/cpu/im2col.h"
#include "kernels/cpu/tiled_gemm.h"

namespace ablate::kernels::cpu {
namespace {

template <class T>
std::vector<T> naive(bool trans_a, int m, int n, int k, T alpha, const std::vector<T>& a, int lda,
                     const std::vector<T>& b, int ldb, T beta, std::vector<T> c, int ldc) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      long double s = 0;
      for (int p = 0; p < k; ++p) s += static_cast<long double>(trans_a ? a[p * lda + i] : a[i * lda + p]) * b[p * ldb + j];
      T& out = c[i * ldc + j];
      out = static_cast<T>(alpha * s + (beta == T(0) ? T(0) : beta * out));
    }
  return c;
}

template <class T> void check(bool trans_a, int m, int n, int k, T alpha, T beta) {
  std::mt19937 rng(static_cast<unsigned>(m * 131 + n * 17 + k));
  std::uniform_real_distribution<double> u(-1, 1);
  const int lda = (trans_a ? m : k) + 3, ldb = n + 5, ldc = n + 2;  // leading dimensions past the edge
  std::vector<T> a((trans_a ? k : m) * lda), b(k * ldb), c(m * ldc);
  for (T& v : a) v = static_cast<T>(u(rng));
  for (T& v : b) v = static_cast<T>(u(rng));
  for (T& v : c) v = beta == T(0) ? std::numeric_limits<T>::quiet_NaN() : static_cast<T>(u(rng));
  const std::vector<T> want = naive(trans_a, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  tiled_gemm(trans_a, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, c.data(), ldc);
  const double tolerance = (sizeof(T) == 4 ? 1e-5 : 1e-12) * std::sqrt(double(k) + 1);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      ASSERT_NEAR(c[i * ldc + j], want[i * ldc + j], tolerance * std::max(1.0, std::abs(double(want[i * ldc + j]))))
          << "m " << m << " n " << n << " k " << k << " trans_a " << trans_a << " at (" << i << ", " << j << ")";
}

TEST(TiledGemm, MatchesTheTripleLoopOverTileEdgesDepthBlocksAndBothOperandOrders) {
  const int lanes = tiled_gemm_lanes<float>();
  for (bool trans_a : {false, true})
    for (int m : {1, 4, 5, 7, 11, 23})
      for (int n : {1, lanes - 1, lanes, 2 * lanes + 3, 4 * lanes, 5 * lanes + 7})
        for (int k : {1, 9, 128, 300}) {
          check<float>(trans_a, m, n, k, 1.0f, 0.0f);
          check<double>(trans_a, m, n, k, 1.0, 0.0);
        }
}

TEST(TiledGemm, AlphaAndBetaScaleAsBlasDoes) {
  check<float>(false, 13, 70, 200, 0.5f, 1.0f);
  check<float>(true, 13, 70, 200, -2.0f, 0.25f);
  check<double>(false, 6, 33, 129, 1.5, -1.0);
}

TEST(TiledGemm, AnEmptyProductScalesC) {
  std::vector<float> c = {1, 2, 3, 4};
  tiled_gemm<float>(false, 2, 2, 0, 1.0f, nullptr, 1, nullptr, 2, 0.5f, c.data(), 2);
  EXPECT_EQ(c, (std::vector<float>{0.5f, 1, 1.5f, 2}));
  c = {std::numeric_limits<float>::quiet_NaN(), 1, 1, 1};
  tiled_gemm<float>(false, 2, 2, 0, 1.0f, nullptr, 1, nullptr, 2, 0.0f, c.data(), 2);
  EXPECT_EQ(c, (std::vector<float>{0, 0, 0, 0}));
}

// tiled_gemm_columns reads a convolution's im2col columns in place, tiled_gemm_add_columns adds
// them back: against the triple loop over the columns im2col writes (and col2im), for vectors
// inside an output row, across two rows and in halves (a row of one and a half), with
// depth blocks after the first (C x 5 x 5 > 128 taps), in both precisions.
template <class T> void check_columns(std::int64_t c, std::int64_t h, std::int64_t w, int m) {
  ConvGeometry g;
  g.n = 1, g.c = c, g.h = h, g.w = w, g.k = m, g.kh = 5, g.kw = 5, g.oh = h - 4, g.ow = w - 4;
  ASSERT_TRUE(implicit_columns_fit<T>(g.oh, g.ow)) << g.oh << "x" << g.ow;
  std::mt19937 rng(static_cast<unsigned>(c * 7 + h + m));
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> x(static_cast<std::size_t>(g.in_size())), a(static_cast<std::size_t>(m * g.col_rows()));
  for (T& v : x) v = static_cast<T>(u(rng));
  for (T& v : a) v = static_cast<T>(u(rng));
  const int k = static_cast<int>(g.col_rows()), n = static_cast<int>(g.pixels());
  std::vector<T> col(static_cast<std::size_t>(k * n));
  im2col(g, x.data(), col.data(), n);
  const std::vector<T> want = naive(false, m, n, k, T(1), a, k, col, n, T(0), std::vector<T>(m * n), n);
  std::vector<std::int64_t> taps;
  for (std::int64_t ch = 0; ch < c; ++ch)
    for (std::int64_t i = 0; i < 5; ++i)
      for (std::int64_t j = 0; j < 5; ++j) taps.push_back((ch * h + i) * w + j);
  std::vector<T> got(static_cast<std::size_t>(m * n), std::numeric_limits<T>::quiet_NaN());
  tiled_gemm_columns(m, k, a.data(), k, x.data(), taps.data(), g.oh, g.ow, g.w, got.data());
  const double tolerance = (sizeof(T) == 4 ? 1e-5 : 1e-12) * std::sqrt(double(k) + 1);
  for (int i = 0; i < m * n; ++i) ASSERT_NEAR(got[i], want[i], tolerance) << "element " << i << " of " << h << "x" << w;
  // The adjoint: the columns W^T x dY added onto a zeroed image, against col2im of them.
  std::vector<T> dy(static_cast<std::size_t>(m * n));
  for (T& v : dy) v = static_cast<T>(u(rng));
  const std::vector<T> columns = naive(true, k, n, m, T(1), a, k, dy, n, T(0), std::vector<T>(k * n), n);
  std::vector<T> want_dx(x.size()), got_dx(x.size(), T(0));
  col2im(g, columns.data(), n, want_dx.data());
  tiled_gemm_add_columns(k, m, a.data(), k, dy.data(), taps.data(), g.oh, g.ow, g.w, got_dx.data());
  for (std::size_t i = 0; i < x.size(); ++i)
    ASSERT_NEAR(got_dx[i], want_dx[i], 25 * tolerance) << "image element " << i << " of " << h << "x" << w;
}

TEST(TiledGemm, ColumnsReadAndAddedInPlaceMatchIm2colAndCol2im) {
  const std::int64_t lanes = tiled_gemm_lanes<float>();
  check_columns<float>(20, lanes / 2 + 4, lanes / 2 + 4, 50);  // LeNet's conv2: two rows a vector
  check_columns<float>(3, 6, 2 * lanes + 4, 7);                // two vectors a row
  check_columns<float>(1, 28, 3 * lanes / 2 + 4, 20);          // LeNet's conv1: a vector and a half a row
  check_columns<double>(6, tiled_gemm_lanes<double>() + 4, tiled_gemm_lanes<double>() / 2 + 4, 13);
  check_columns<double>(2, 5, tiled_gemm_lanes<double>() + 4, 3);
  check_columns<double>(3, 6, 3 * tiled_gemm_lanes<double>() / 2 + 4, 5);  // halves
  EXPECT_FALSE(implicit_columns_fit<float>(8, lanes + 1));
  EXPECT_FALSE(implicit_columns_fit<float>(7, lanes / 2)) << "an odd row count leaves half a vector";
  EXPECT_FALSE(implicit_columns_fit<float>(8, lanes / 2 + 1)) << "a half vector across two rows";
}

}  // namespace
}  // namespace ablate::kernels::cpu
