// A GEMM split over OpenMP threads, each block a single-threaded library call: the way the
// omp_* modes (conv_mode.h) run GEMMs outside convolutions, so that all threads are OpenMP's
// and the BLAS's own pool (a separate pthread pool in Debian's OpenBLAS) never competes with
// them for the cores. Row-major C[M,N] = alpha op(A) op(B) + beta C is cut into column blocks
// (C[:, n0:n1] needs B's columns n0:n1) or, when M is the larger side, row blocks.
#pragma once

#include <algorithm>
#include <cstdint>

#include <omp.h>

namespace ablate::kernels::cpu {

// Blocks are multiples of this many columns or rows (a vector of f32), except the last.
constexpr int kSplitAlign = 16;
// Below this many multiply-adds a GEMM stays on one thread.
constexpr std::int64_t kSplitMinWork = std::int64_t{1} << 18;

template <class T, class Gemm>
void split_gemm(int threads, const Gemm& gemm, bool ta, bool tb, int m, int n, int k, T alpha, const T* a, int lda,
                const T* b, int ldb, T beta, T* c, int ldc) {
  const std::int64_t work = std::int64_t{m} * n * k;
  const bool by_rows = m > n;
  const int side = by_rows ? m : n;
  const int blocks = std::min(threads, (side + kSplitAlign - 1) / kSplitAlign);
  if (blocks <= 1 || work < kSplitMinWork || omp_in_parallel()) {
    gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
#pragma omp parallel num_threads(blocks)
  {
    const int t = omp_get_thread_num(), count = omp_get_num_threads();
    const int units = (side + kSplitAlign - 1) / kSplitAlign;  // aligned units shared out
    const int begin = std::min(side, units * t / count * kSplitAlign);
    const int end = std::min(side, units * (t + 1) / count * kSplitAlign);
    if (begin < end) {
      if (by_rows) {
        const T* a_rows = ta ? a + begin : a + static_cast<std::int64_t>(begin) * lda;
        gemm(ta, tb, end - begin, n, k, alpha, a_rows, lda, b, ldb, beta, c + static_cast<std::int64_t>(begin) * ldc, ldc);
      } else {
        const T* b_cols = tb ? b + static_cast<std::int64_t>(begin) * ldb : b + begin;
        gemm(ta, tb, m, end - begin, k, alpha, a, lda, b_cols, ldb, beta, c + begin, ldc);
      }
    }
  }
}

}  // namespace ablate::kernels::cpu
