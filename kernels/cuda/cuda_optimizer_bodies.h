// The CUDA backend's optimizer updates as structs (see cuda_grid.h), the math of
// kernels/reference/reference_optim.cpp: each element in double, rounded once to T.
#pragma once

#include <math.h>

#include <cstdint>

#include "kernels/cuda/cuda_grid.h"
#include "kernels/op_params.h"

namespace ablate::kernels::cuda {

// Caffe SGD: g += wd w; h = mom h + lr g; w -= h.
template <class T> struct CaffeSgdKernel {
  T* w;
  T* g;
  T* hist;
  std::int64_t n;
  double lr, mom, wd;
  Grid grid() const { return grid_stride_grid(n); }
  ABLATE_HOST_DEVICE void operator()(const ThreadIndex& t) const {
    ABLATE_GRID_LOOP(i, n, t) {
      const double grad = double(g[i]) + wd * double(w[i]);
      const double h = mom * double(hist[i]) + lr * grad;
      g[i] = T(grad);
      hist[i] = T(h);
      w[i] = T(double(w[i]) - h);
    }
  }
};

// Torch7 SGD: g += wd w; v = first ? g : mom v + (1 - damp) g; step = nesterov ? g + mom v : v.
template <class T> struct TorchSgdKernel {
  T* w;
  T* g;
  T* vel;
  std::int64_t n;
  double lr, mom, damp, wd;
  bool nesterov, first;
  Grid grid() const { return grid_stride_grid(n); }
  ABLATE_HOST_DEVICE void operator()(const ThreadIndex& t) const {
    ABLATE_GRID_LOOP(i, n, t) {
      const double grad = double(g[i]) + wd * double(w[i]);
      double step = grad;  // momentum 0: Torch7 uses the gradient itself, no buffer
      if (mom != 0) {
        const double v = first ? grad : mom * double(vel[i]) + (1 - damp) * grad;
        vel[i] = T(v);
        step = nesterov ? grad + mom * v : v;
      }
      g[i] = T(grad);
      w[i] = T(double(w[i]) - lr * step);
    }
  }
};

// TF's Adam step size lr_t = lr sqrt(1 - b2^t) / (1 - b1^t), computed once on the host.
inline double adam_step_size(const AdamParams& p) {
  const double t = static_cast<double>(p.t);
  return p.lr * sqrt(1 - pow(p.beta2, t)) / (1 - pow(p.beta1, t));
}

// TF Adam: m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2; w -= lr_t m / (sqrt(v) + eps).
template <class T> struct AdamKernel {
  T* w;
  const T* g;
  T* m;
  T* v;
  std::int64_t n;
  double lr_t, b1, b2, eps;
  Grid grid() const { return grid_stride_grid(n); }
  ABLATE_HOST_DEVICE void operator()(const ThreadIndex& t) const {
    ABLATE_GRID_LOOP(i, n, t) {
      const double grad = g[i];
      const double mi = b1 * double(m[i]) + (1 - b1) * grad;
      const double vi = b2 * double(v[i]) + (1 - b2) * grad * grad;
      m[i] = T(mi);
      v[i] = T(vi);
      w[i] = T(double(w[i]) - lr_t * mi / (sqrt(vi) + eps));
    }
  }
};

}  // namespace ablate::kernels::cuda
