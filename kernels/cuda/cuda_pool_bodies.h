// The CUDA backend's pooling kernels as structs (see cuda_grid.h), with Pool2dParams's
// geometry (kernels/reference/reference_pool.cpp has the rules: Caffe's ceil, TF SAME, valid;
// max takes the first maximum in raster order, average divides by the clipped window or by
// the real cells). cuDNN has neither Caffe's ceil rule nor TF SAME's asymmetric padding.
// Forward: one thread per output cell. Backward: one thread per input cell, gathering the
// windows that cover it (no atomics: deterministic).
#pragma once

#include <cstdint>

#include "kernels/cuda/cuda_grid.h"
#include "kernels/op_params.h"
#include "kernels/tensor.h"

namespace ablate::kernels::cuda {

// x [N, C, H, W] as `planes` = N*C planes, pooled to [planes, out_h, out_w].
struct PoolGeometry {
  std::int64_t planes, H, W, out_h, out_w;
  int kernel_h, kernel_w, stride_h, stride_w, pad_top, pad_left, pad_bottom_limit, pad_right_limit;
  bool max, avg_count_padding;
  bool all_maxima = false;  // max backward: every cell equal to the window's maximum (PoolGradient::all)
};

// The geometry of x [N,C,H,W] pooled with p (checked by the contract).
inline PoolGeometry pool_geometry(const Pool2dParams& p, const Shape& x) {
  return {x[0] * x[1], x[2], x[3], p.out_h, p.out_w, p.kernel_h, p.kernel_w, p.stride_h, p.stride_w, p.pad_top,
          p.pad_left, p.pad_bottom_limit, p.pad_right_limit, p.kind == PoolKind::max, p.avg_count_padding};
}

// The window of output (oh, ow) clipped to the real image, and its average divisor.
struct PoolWindow {
  std::int64_t h0, h1, w0, w1;
  double divisor;
};
ABLATE_HOST_DEVICE inline PoolWindow pool_window(const PoolGeometry& g, std::int64_t oh, std::int64_t ow) {
  const std::int64_t hs = oh * g.stride_h - g.pad_top, ws = ow * g.stride_w - g.pad_left;
  const std::int64_t he = hs + g.kernel_h, we = ws + g.kernel_w;
  PoolWindow win{hs > 0 ? hs : 0, he < g.H ? he : g.H, ws > 0 ? ws : 0, we < g.W ? we : g.W, 0};
  if (g.avg_count_padding) {
    const std::int64_t hl = g.H + g.pad_bottom_limit, wl = g.W + g.pad_right_limit;
    win.divisor = double((he < hl ? he : hl) - hs) * double((we < wl ? we : wl) - ws);
  } else {
    win.divisor = double(win.h1 - win.h0) * double(win.w1 - win.w0);
  }
  return win;
}

// The outputs [lo, hi) along one axis whose window [o*S - pad, o*S - pad + K) holds input h.
ABLATE_HOST_DEVICE inline void covering(std::int64_t h, int kernel, int stride, int pad, std::int64_t out, std::int64_t& lo,
                                        std::int64_t& hi) {
  const std::int64_t a = h + pad - kernel + 1;  // o*S >= a
  lo = a <= 0 ? 0 : (a + stride - 1) / stride;
  hi = (h + pad) / stride + 1;  // o*S <= h + pad
  if (hi > out) hi = out;
}

// y [planes, out_h, out_w]; argmax (max pooling) the flat index h*W + w of each maximum.
template <class T> struct PoolForwardKernel {
  PoolGeometry g;
  const T* x;
  T* y;
  std::int32_t* argmax;
  Grid grid() const { return grid_stride_grid(g.planes * g.out_h * g.out_w); }
  ABLATE_HOST_DEVICE void operator()(const ThreadIndex& t) const {
    ABLATE_GRID_LOOP(out, g.planes * g.out_h * g.out_w, t) {
      const std::int64_t ow = out % g.out_w, oh = (out / g.out_w) % g.out_h, plane = out / (g.out_w * g.out_h);
      const PoolWindow win = pool_window(g, oh, ow);
      const T* in = x + plane * g.H * g.W;
      if (g.max) {
        std::int64_t best = win.h0 * g.W + win.w0;
        for (std::int64_t h = win.h0; h < win.h1; ++h)
          for (std::int64_t w = win.w0; w < win.w1; ++w)
            if (in[h * g.W + w] > in[best]) best = h * g.W + w;
        y[out] = in[best];
        argmax[out] = static_cast<std::int32_t>(best);
      } else {
        double s = 0;
        for (std::int64_t h = win.h0; h < win.h1; ++h)
          for (std::int64_t w = win.w0; w < win.w1; ++w) s += in[h * g.W + w];
        y[out] = T(s / win.divisor);
      }
    }
  }
};

// dx [planes, H, W]: max pooling reads argmax, or x and y when g.all_maxima.
template <class T> struct PoolBackwardKernel {
  PoolGeometry g;
  const T* x;
  const T* y;
  const T* dy;
  const std::int32_t* argmax;
  T* dx;
  Grid grid() const { return grid_stride_grid(g.planes * g.H * g.W); }
  ABLATE_HOST_DEVICE void operator()(const ThreadIndex& t) const {
    ABLATE_GRID_LOOP(i, g.planes * g.H * g.W, t) {
      const std::int64_t w = i % g.W, h = (i / g.W) % g.H, plane = i / (g.W * g.H);
      std::int64_t oh0, oh1, ow0, ow1;
      covering(h, g.kernel_h, g.stride_h, g.pad_top, g.out_h, oh0, oh1);
      covering(w, g.kernel_w, g.stride_w, g.pad_left, g.out_w, ow0, ow1);
      double s = 0;
      const std::int64_t base = plane * g.out_h * g.out_w;
      for (std::int64_t oh = oh0; oh < oh1; ++oh)
        for (std::int64_t ow = ow0; ow < ow1; ++ow) {
          const std::int64_t out = base + oh * g.out_w + ow;
          if (g.max) {
            if (g.all_maxima ? x[i] == y[out] : argmax[out] == h * g.W + w) s += dy[out];
          } else {
            s += double(T(dy[out] / pool_window(g, oh, ow).divisor));
          }
        }
      dx[i] = T(s);
    }
  }
};

}  // namespace ablate::kernels::cuda
