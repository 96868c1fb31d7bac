// The CUDA backend's own elementwise kernels as structs (see cuda_grid.h): fill, axpby / add /
// mul, bias add, dropout masks, GELU, and the zero padding (and its crop) of asymmetric
// convolution padding. Each is a grid-stride loop, one element per thread per pass; the
// arithmetic is in double and rounded once to T, as the reference backend's.
#pragma once

#include <cstdint>

#include "kernels/counter_random.h"
#include "kernels/cuda/cuda_grid.h"
#include "kernels/gelu_math.h"

namespace ablate::kernels::cuda {

enum class Elementwise { axpby, add, mul };  // out = a x + b out | out = x + y | out = x * y

template <class T> struct FillKernel {
  T* x;
  std::int64_t n;
  T value;
  Grid grid() const { return grid_stride_grid(n); }
  ABLATE_HOST_DEVICE void operator()(const ThreadIndex& t) const { ABLATE_GRID_LOOP(i, n, t) x[i] = value; }
};

// axpby: out = alpha x + beta out (beta == 0 ignores out, as BLAS does); add, mul read x, y.
template <class T> struct ElementwiseKernel {
  Elementwise op;
  std::int64_t n;
  double alpha;
  const T* x;
  double beta;
  const T* y;
  T* out;
  Grid grid() const { return grid_stride_grid(n); }
  ABLATE_HOST_DEVICE void operator()(const ThreadIndex& t) const {
    ABLATE_GRID_LOOP(i, n, t) {
      double r;
      if (op == Elementwise::axpby) r = beta == 0 ? alpha * double(x[i]) : alpha * double(x[i]) + beta * double(out[i]);
      else if (op == Elementwise::add) r = double(x[i]) + double(y[i]);
      else r = double(x[i]) * double(y[i]);
      out[i] = T(r);
    }
  }
};

// y[n, c, i] += bias[c], y viewed as [N, C, inner].
template <class T> struct BiasAddKernel {
  T* y;
  const T* bias;
  std::int64_t N, C, inner;
  Grid grid() const { return grid_stride_grid(N * C * inner); }
  ABLATE_HOST_DEVICE void operator()(const ThreadIndex& t) const {
    ABLATE_GRID_LOOP(i, N * C * inner, t) y[i] = T(double(y[i]) + double(bias[(i / inner) % C]));
  }
};

// mask[i] = u(seed, first + i) < keep ? 1 / keep : 0 (kernels/counter_random.h).
template <class T> struct DropoutKernel {
  T* mask;
  std::int64_t n;
  double keep;
  std::uint64_t seed, first;
  Grid grid() const { return grid_stride_grid(n); }
  ABLATE_HOST_DEVICE void operator()(const ThreadIndex& t) const {
    const T kept = static_cast<T>(1.0 / keep);
    ABLATE_GRID_LOOP(i, n, t) mask[i] = counter_uniform(seed, first + static_cast<std::uint64_t>(i)) < keep ? kept : T(0);
  }
};

// GELU (kernels/gelu_math.h) in T: y = GELU(x); dx = dy GELU'(x), dx may be dy.
template <class T> struct GeluForwardKernel {
  const T* x;
  T* y;
  std::int64_t n;
  GeluApprox approx;
  Grid grid() const { return grid_stride_grid(n); }
  ABLATE_HOST_DEVICE void operator()(const ThreadIndex& t) const {
    ABLATE_GRID_LOOP(i, n, t) y[i] = gelu_value(x[i], approx);
  }
};
template <class T> struct GeluBackwardKernel {
  const T* x;
  const T* dy;
  T* dx;
  std::int64_t n;
  GeluApprox approx;
  Grid grid() const { return grid_stride_grid(n); }
  ABLATE_HOST_DEVICE void operator()(const ThreadIndex& t) const {
    ABLATE_GRID_LOOP(i, n, t) dx[i] = dy[i] * gelu_derivative(x[i], approx);
  }
};

// NCHW planes [planes, H, W] placed at (top, left) in zero planes [planes, HP, WP], and the
// inverse crop.
struct PadGeometry {
  std::int64_t planes, H, W;
  int top, left;
  std::int64_t HP, WP;
};
template <class T> struct Pad2dKernel {
  PadGeometry g;
  const T* x;
  T* xp;
  Grid grid() const { return grid_stride_grid(g.planes * g.HP * g.WP); }
  ABLATE_HOST_DEVICE void operator()(const ThreadIndex& t) const {
    ABLATE_GRID_LOOP(i, g.planes * g.HP * g.WP, t) {
      const std::int64_t w = i % g.WP - g.left, h = (i / g.WP) % g.HP - g.top, plane = i / (g.WP * g.HP);
      xp[i] = (h >= 0 && h < g.H && w >= 0 && w < g.W) ? x[(plane * g.H + h) * g.W + w] : T(0);
    }
  }
};
template <class T> struct Crop2dKernel {
  PadGeometry g;
  const T* xp;
  T* x;
  Grid grid() const { return grid_stride_grid(g.planes * g.H * g.W); }
  ABLATE_HOST_DEVICE void operator()(const ThreadIndex& t) const {
    ABLATE_GRID_LOOP(i, g.planes * g.H * g.W, t) {
      const std::int64_t w = i % g.W, h = (i / g.W) % g.H, plane = i / (g.W * g.H);
      x[i] = xp[(plane * g.HP + h + g.top) * g.WP + w + g.left];
    }
  }
};

}  // namespace ablate::kernels::cuda
