// The CUDA backend's own attention kernels as structs (see cuda_grid.h): softmax along the last
// axis with a scale, layer normalisation over the last axis, and axis permutation, with the math
// of kernels/backend.h. A tensor is viewed as rows [R, K] (K its last dimension): the row kernels
// give one thread a whole row (its sums in double, in the reference's order, so f64 results are
// the reference's bit for bit); layer norm's parameter gradients give one thread a column
// (summing over the rows in order: deterministic, no atomics); permutation one thread an output
// element. Every row kernel reads its row's inputs before it writes the row, so an output may
// alias its input where backend.h allows it.
#pragma once

#include <math.h>

#include <cstdint>

#include "kernels/cuda/cuda_grid.h"

namespace ablate::kernels::cuda {

// y[r, k] = exp(s x[r, k] - m_r) / sum_j exp(s x[r, j] - m_r),  m_r = max_j s x[r, j]
template <class T> struct SoftmaxLastForwardKernel {
  const T* x;
  std::int64_t R, K;
  double scale;
  T* y;
  Grid grid() const { return grid_stride_grid(R); }
  ABLATE_HOST_DEVICE void operator()(const ThreadIndex& t) const {
    ABLATE_GRID_LOOP(r, R, t) {
      const T* in = x + r * K;
      double m = scale * in[0];
      for (std::int64_t k = 1; k < K; ++k) m = fmax(m, scale * in[k]);
      double total = 0;
      for (std::int64_t k = 0; k < K; ++k) total += exp(scale * in[k] - m);
      T* out = y + r * K;
      for (std::int64_t k = 0; k < K; ++k) out[k] = T(exp(scale * in[k] - m) / total);
    }
  }
};

// dx[r, k] = s y[r, k] (dy[r, k] - sum_j dy[r, j] y[r, j])
template <class T> struct SoftmaxLastBackwardKernel {
  const T* y;
  const T* dy;
  std::int64_t R, K;
  double scale;
  T* dx;
  Grid grid() const { return grid_stride_grid(R); }
  ABLATE_HOST_DEVICE void operator()(const ThreadIndex& t) const {
    ABLATE_GRID_LOOP(r, R, t) {
      const T *p = y + r * K, *g = dy + r * K;
      double dot = 0;
      for (std::int64_t k = 0; k < K; ++k) dot += double(g[k]) * p[k];
      T* d = dx + r * K;
      for (std::int64_t k = 0; k < K; ++k) d[k] = T(scale * p[k] * (g[k] - dot));
    }
  }
};

// mean[r], rstd[r] = 1 / sqrt(var[r] + eps) (biased variance, two passes), and
// y = gamma[d] (x - mean) rstd + beta[d] (gamma, beta null: no affine part).
template <class T> struct LayerNormForwardKernel {
  const T* x;
  const T* gamma;
  const T* beta;
  std::int64_t R, D;
  double epsilon;
  T* y;
  T* mean;
  T* rstd;
  Grid grid() const { return grid_stride_grid(R); }
  ABLATE_HOST_DEVICE void operator()(const ThreadIndex& t) const {
    ABLATE_GRID_LOOP(r, R, t) {
      const T* in = x + r * D;
      double mu = 0, var = 0;
      for (std::int64_t d = 0; d < D; ++d) mu += in[d];
      mu /= double(D);
      for (std::int64_t d = 0; d < D; ++d) var += (in[d] - mu) * (in[d] - mu);
      var /= double(D);
      const double inv = 1.0 / sqrt(var + epsilon);
      mean[r] = T(mu);
      rstd[r] = T(inv);
      T* out = y + r * D;
      for (std::int64_t d = 0; d < D; ++d) {
        const double xhat = (in[d] - mu) * inv;
        out[d] = T(gamma ? gamma[d] * xhat + beta[d] : xhat);
      }
    }
  }
};

// With x_hat = (x - mean[r]) rstd[r] and g = gamma[d] dy (gamma null: 1), per row:
//   dx = rstd (g - mean_d(g) - x_hat mean_d(g x_hat))
template <class T> struct LayerNormBackwardRowsKernel {
  const T* x;
  const T* dy;
  const T* gamma;
  const T* mean;
  const T* rstd;
  std::int64_t R, D;
  T* dx;
  Grid grid() const { return grid_stride_grid(R); }
  ABLATE_HOST_DEVICE void operator()(const ThreadIndex& t) const {
    ABLATE_GRID_LOOP(r, R, t) {
      const T *in = x + r * D, *grad = dy + r * D;
      const double mu = mean[r], inv = rstd[r];
      double mean_g = 0, mean_gx = 0;
      for (std::int64_t d = 0; d < D; ++d) {
        const double xhat = (in[d] - mu) * inv;
        const double g = (gamma ? gamma[d] : 1.0) * grad[d];
        mean_g += g;
        mean_gx += g * xhat;
      }
      mean_g /= double(D);
      mean_gx /= double(D);
      T* out = dx + r * D;
      for (std::int64_t d = 0; d < D; ++d) {
        const double xhat = (in[d] - mu) * inv;
        const double g = (gamma ? gamma[d] : 1.0) * grad[d];
        out[d] = T(inv * (g - mean_g - xhat * mean_gx));
      }
    }
  }
};

// dgamma[d] = sum_r dy[r, d] x_hat[r, d], dbeta[d] = sum_r dy[r, d] (either null: not computed).
// Launched before the rows kernel, since dx may alias dy.
template <class T> struct LayerNormBackwardColumnsKernel {
  const T* x;
  const T* dy;
  const T* mean;
  const T* rstd;
  std::int64_t R, D;
  T* dgamma;
  T* dbeta;
  Grid grid() const { return grid_stride_grid(D); }
  ABLATE_HOST_DEVICE void operator()(const ThreadIndex& t) const {
    ABLATE_GRID_LOOP(d, D, t) {
      double sum_gamma = 0, sum_beta = 0;
      for (std::int64_t r = 0; r < R; ++r) {
        const double xhat = (x[r * D + d] - double(mean[r])) * double(rstd[r]);
        sum_gamma += dy[r * D + d] * xhat;
        sum_beta += dy[r * D + d];
      }
      if (dgamma) dgamma[d] = T(sum_gamma);
      if (dbeta) dbeta[d] = T(sum_beta);
    }
  }
};

// A permutation's index map, rank 2 to 6: the output's dimensions, and for each output
// dimension d the input's stride along perm[d] (row-major strides of x).
struct PermuteGeometry {
  static constexpr int kMaxRank = 6;
  int rank = 0;
  std::int64_t out_dim[kMaxRank] = {};
  std::int64_t in_stride[kMaxRank] = {};
  std::int64_t numel = 0;
};
// The geometry of permuting an x of `rank` dimensions `x_dims` by `perm` (checked by the
// op's contract: a permutation of 0..rank-1, rank 2..6).
inline PermuteGeometry permute_geometry(int rank, const std::int64_t* x_dims, const int* perm) {
  PermuteGeometry g;
  g.rank = rank;
  std::int64_t stride[PermuteGeometry::kMaxRank];
  stride[rank - 1] = 1;
  for (int d = rank - 2; d >= 0; --d) stride[d] = stride[d + 1] * x_dims[d + 1];
  g.numel = 1;
  for (int d = 0; d < rank; ++d) {
    g.out_dim[d] = x_dims[perm[d]];
    g.in_stride[d] = stride[perm[d]];
    g.numel *= g.out_dim[d];
  }
  return g;
}

// y[i] = x[offset(i)]: the output index decoded last dimension fastest, each coordinate times
// the input's stride along the dimension it came from.
template <class T> struct PermuteKernel {
  PermuteGeometry g;
  const T* x;
  T* y;
  Grid grid() const { return grid_stride_grid(g.numel); }
  ABLATE_HOST_DEVICE void operator()(const ThreadIndex& t) const {
    ABLATE_GRID_LOOP(i, g.numel, t) {
      std::int64_t rest = i, offset = 0;
      for (int d = g.rank - 1; d >= 0; --d) {
        offset += (rest % g.out_dim[d]) * g.in_stride[d];
        rest /= g.out_dim[d];
      }
      y[i] = x[offset];
    }
  }
};

}  // namespace ablate::kernels::cuda
