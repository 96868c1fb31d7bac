// The CUDA backend's own loss kernels as structs (see cuda_grid.h): softmax cross-entropy and
// NLL per row with integer labels, forward (one thread per row, log-sum-exp in double) and
// backward (one thread per element). logits, p, logp, d are [N, K]; labels i32 [N].
#pragma once

#include <math.h>

#include <cstdint>

#include "kernels/cuda/cuda_grid.h"

namespace ablate::kernels::cuda {

// loss[n] = -log softmax(x[n])[label[n]] = max + log sum exp(x - max) - x[label].
template <class T> struct XentRowsKernel {
  const T* x;
  const std::int32_t* labels;
  std::int64_t N, K;
  double* loss;
  Grid grid() const { return grid_stride_grid(N); }
  ABLATE_HOST_DEVICE void operator()(const ThreadIndex& t) const {
    ABLATE_GRID_LOOP(n, N, t) {
      const T* row = x + n * K;
      double m = row[0];
      for (std::int64_t k = 1; k < K; ++k) m = fmax(m, double(row[k]));
      double s = 0;
      for (std::int64_t k = 0; k < K; ++k) s += exp(double(row[k]) - m);
      loss[n] = (m - double(row[labels[n]])) + log(s);
    }
  }
};

// d = (p - onehot(label)) * scale
template <class T> struct XentBackwardKernel {
  const T* p;
  const std::int32_t* labels;
  std::int64_t N, K;
  double scale;
  T* d;
  Grid grid() const { return grid_stride_grid(N * K); }
  ABLATE_HOST_DEVICE void operator()(const ThreadIndex& t) const {
    ABLATE_GRID_LOOP(i, N * K, t) {
      const std::int64_t n = i / K, k = i % K;
      d[i] = T((double(p[i]) - (k == labels[n] ? 1.0 : 0.0)) * scale);
    }
  }
};

// loss[n] = -logp[n, label[n]]
template <class T> struct NllRowsKernel {
  const T* logp;
  const std::int32_t* labels;
  std::int64_t N, K;
  double* loss;
  Grid grid() const { return grid_stride_grid(N); }
  ABLATE_HOST_DEVICE void operator()(const ThreadIndex& t) const {
    ABLATE_GRID_LOOP(n, N, t) loss[n] = -double(logp[n * K + labels[n]]);
  }
};

// d = -scale at the label, 0 elsewhere.
template <class T> struct NllBackwardKernel {
  const std::int32_t* labels;
  std::int64_t N, K;
  double scale;
  T* d;
  Grid grid() const { return grid_stride_grid(N * K); }
  ABLATE_HOST_DEVICE void operator()(const ThreadIndex& t) const {
    ABLATE_GRID_LOOP(i, N * K, t) d[i] = (i % K) == labels[i / K] ? T(-scale) : T(0);
  }
};

}  // namespace ablate::kernels::cuda
