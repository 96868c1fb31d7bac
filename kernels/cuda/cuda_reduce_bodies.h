// The CUDA backend's own reduction kernels as structs (see cuda_grid.h): partial sums (of x or
// x^2) per block, the argmax of each row, and the bias gradient (one block per channel). The
// block sums run a fixed-order tree, so every result is deterministic.
#pragma once

#include <cstdint>

#include "kernels/cuda/cuda_grid.h"

namespace ablate::kernels::cuda {

// The grid of PartialSumsKernel over n > 0 elements: one partial per block, at most 256
// blocks (the host adds the partials in order).
inline Grid partial_sums_grid(std::int64_t n) {
  const std::int64_t blocks = (n + kThreads - 1) / kThreads;
  return {blocks < 1 ? 1 : (blocks > 256 ? 256 : blocks), 1, kThreads};
}

// partials[block] = the block's grid-stride share of sum x[i] (or x[i]^2), in double.
template <class T> struct PartialSumsKernel {
  static constexpr int kPhases = 1;
  using Partial = Sums<1>;
  const T* x;
  std::int64_t n;
  bool squares;
  double* partials;
  Grid grid() const { return partial_sums_grid(n); }
  ABLATE_HOST_DEVICE Partial partial(const ThreadIndex& t, int, const Partial*) const {
    double s = 0;
    ABLATE_GRID_LOOP(i, n, t) {
      const double v = x[i];
      s += squares ? v * v : v;
    }
    return {{s}};
  }
  ABLATE_HOST_DEVICE void finish(const ThreadIndex& t, const Partial* totals) const { partials[t.block_x] = totals[0].v[0]; }
};

// out[r] = the first k of the largest x[r, k] (the reference's tie rule).
template <class T> struct ArgmaxRowsKernel {
  const T* x;
  std::int64_t rows, cols;
  std::int32_t* out;
  Grid grid() const { return grid_stride_grid(rows); }
  ABLATE_HOST_DEVICE void operator()(const ThreadIndex& t) const {
    ABLATE_GRID_LOOP(r, rows, t) {
      const T* row = x + r * cols;
      std::int64_t best = 0;
      for (std::int64_t k = 1; k < cols; ++k)
        if (row[k] > row[best]) best = k;
      out[r] = static_cast<std::int32_t>(best);
    }
  }
};

// dbias[c] = sum over n, i of dy[n, c, i] (dy viewed as [N, C, inner]); block c sums channel c.
template <class T> struct BiasBackwardKernel {
  static constexpr int kPhases = 1;
  using Partial = Sums<1>;
  const T* dy;
  T* dbias;
  std::int64_t N, C, inner;
  Grid grid() const { return block_per(C); }
  ABLATE_HOST_DEVICE Partial partial(const ThreadIndex& t, int, const Partial*) const {
    const std::int64_t c = t.block_x;
    double s = 0;
    ABLATE_BLOCK_LOOP(j, N * inner, t) s += dy[((j / inner) * C + c) * inner + j % inner];
    return {{s}};
  }
  ABLATE_HOST_DEVICE void finish(const ThreadIndex& t, const Partial* totals) const { dbias[t.block_x] = T(totals[0].v[0]); }
};

}  // namespace ablate::kernels::cuda
