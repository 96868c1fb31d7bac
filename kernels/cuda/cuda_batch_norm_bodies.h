// The CUDA backend's batch normalisation kernels as structs (see cuda_grid.h and, for the
// math, cuda_batch_norm_kernels.h): x viewed as [N, C, S], M = N*S values per channel. The
// per-channel sums are block-sum kernels, one block per channel; the rest grid-stride loops.
#pragma once

#include <math.h>

#include <cstdint>

#include "kernels/cuda/cuda_batch_norm_kernels.h"
#include "kernels/cuda/cuda_grid.h"

namespace ablate::kernels::cuda {

// Index of the j-th of the M values of channel c.
ABLATE_HOST_DEVICE inline std::int64_t channel_index(const BatchGeometry& g, std::int64_t c, std::int64_t j) {
  return ((j / g.S) * g.C + c) * g.S + j % g.S;
}

ABLATE_HOST_DEVICE inline ChannelAffine affine_of(double mean, double var, double gamma, double beta, double eps) {
  const double scale = gamma / sqrt(var + eps);
  return {mean, scale, beta};
}

// Phase 0 sums x (the mean), phase 1 sums (x - mean)^2 (the biased variance): two passes.
template <class T> struct BatchNormStatsKernel {
  static constexpr int kPhases = 2;
  using Partial = Sums<1>;
  BatchGeometry g;
  const T* x;
  const T* gamma;
  const T* beta;
  double eps;
  T* mean_out;
  T* var_out;
  ChannelAffine* affine;
  Grid grid() const { return block_per(g.C); }
  ABLATE_HOST_DEVICE Partial partial(const ThreadIndex& t, int phase, const Partial* totals) const {
    const std::int64_t c = t.block_x, m = g.N * g.S;
    double s = 0;
    if (phase == 0) {
      ABLATE_BLOCK_LOOP(j, m, t) s += x[channel_index(g, c, j)];
    } else {
      const double mean = totals[0].v[0] / double(m);
      ABLATE_BLOCK_LOOP(j, m, t) {
        const double d = double(x[channel_index(g, c, j)]) - mean;
        s += d * d;
      }
    }
    return {{s}};
  }
  ABLATE_HOST_DEVICE void finish(const ThreadIndex& t, const Partial* totals) const {
    const std::int64_t c = t.block_x;
    const double m = double(g.N * g.S), mean = totals[0].v[0] / m, var = totals[1].v[0] / m;
    mean_out[c] = T(mean);
    var_out[c] = T(var);
    affine[c] = affine_of(mean, var, gamma ? double(gamma[c]) : 1.0, beta ? double(beta[c]) : 0.0, eps);
  }
};

// Inference: the affine of the given mean and var, one thread per channel.
template <class T> struct BatchNormAffineKernel {
  std::int64_t C;
  const T* gamma;
  const T* beta;
  const T* mean;
  const T* var;
  double eps;
  ChannelAffine* affine;
  Grid grid() const { return grid_stride_grid(C); }
  ABLATE_HOST_DEVICE void operator()(const ThreadIndex& t) const {
    ABLATE_GRID_LOOP(c, C, t)
    affine[c] = affine_of(mean[c], var[c], gamma ? double(gamma[c]) : 1.0, beta ? double(beta[c]) : 0.0, eps);
  }
};

// y = (x - mean[c]) scale[c] + shift[c]; y may be x.
template <class T> struct BatchNormApplyKernel {
  BatchGeometry g;
  const T* x;
  const ChannelAffine* affine;
  T* y;
  Grid grid() const { return grid_stride_grid(g.N * g.C * g.S); }
  ABLATE_HOST_DEVICE void operator()(const ThreadIndex& t) const {
    ABLATE_GRID_LOOP(i, g.N * g.C * g.S, t) {
      const ChannelAffine a = affine[(i / g.S) % g.C];
      y[i] = T((double(x[i]) - a.mean) * a.scale + a.shift);
    }
  }
};

// sums[2c] = sum dy, sums[2c + 1] = sum dy x_hat, side by side in one pass (also into dbeta,
// dgamma when given).
template <class T> struct BatchNormBackwardSumsKernel {
  static constexpr int kPhases = 1;
  using Partial = Sums<2>;
  BatchGeometry g;
  const T* x;
  const T* dy;
  const T* mean;
  const T* var;
  double eps;
  double* sums;
  T* dgamma;
  T* dbeta;
  Grid grid() const { return block_per(g.C); }
  ABLATE_HOST_DEVICE Partial partial(const ThreadIndex& t, int, const Partial*) const {
    const std::int64_t c = t.block_x, m = g.N * g.S;
    const double mu = mean[c], inv_s = 1.0 / sqrt(double(var[c]) + eps);
    Partial p{{0, 0}};
    ABLATE_BLOCK_LOOP(j, m, t) {
      const std::int64_t i = channel_index(g, c, j);
      p.v[0] += dy[i];
      p.v[1] += double(dy[i]) * (double(x[i]) - mu) * inv_s;
    }
    return p;
  }
  ABLATE_HOST_DEVICE void finish(const ThreadIndex& t, const Partial* totals) const {
    const std::int64_t c = t.block_x;
    sums[2 * c] = totals[0].v[0];
    sums[2 * c + 1] = totals[0].v[1];
    if (dbeta) dbeta[c] = T(totals[0].v[0]);
    if (dgamma) dgamma[c] = T(totals[0].v[1]);
  }
};

// dx = gamma / s (dy - (sums[2c] + x_hat sums[2c + 1]) / M); dx may be dy.
template <class T> struct BatchNormBackwardDataKernel {
  BatchGeometry g;
  const T* x;
  const T* dy;
  const T* gamma;
  const T* mean;
  const T* var;
  double eps;
  const double* sums;
  T* dx;
  Grid grid() const { return grid_stride_grid(g.N * g.C * g.S); }
  ABLATE_HOST_DEVICE void operator()(const ThreadIndex& t) const {
    const double m = double(g.N * g.S);
    ABLATE_GRID_LOOP(i, g.N * g.C * g.S, t) {
      const std::int64_t c = (i / g.S) % g.C;
      const double inv_s = 1.0 / sqrt(double(var[c]) + eps), x_hat = (double(x[i]) - double(mean[c])) * inv_s;
      const double scale = (gamma ? double(gamma[c]) : 1.0) * inv_s;
      dx[i] = T(scale * (double(dy[i]) - (sums[2 * c] + x_hat * sums[2 * c + 1]) / m));
    }
  }
};

}  // namespace ablate::kernels::cuda
