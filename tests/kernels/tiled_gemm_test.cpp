// tiled_gemm (kernels/cpu/tiled_gemm.h) against a plain triple loop: every tile shape and its
// last rows, columns past the last whole vector, depth blocks after the first (k > 128), op(A)
// transposed, alpha and beta, and beta = 0 not reading C (NaN there must not reach the result).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

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

}  // namespace
}  // namespace ablate::kernels::cpu
