// The connection-table convolution's kernels as structs (see cuda_grid.h and, for shapes and
// math, cuda_conv_map_kernels.h). Padded pixels are zero and skipped; output (oh, ow) tap
// (a, b) reads input (oh * stride_h - pad_top + a, ow * stride_w - pad_left + b).
#pragma once

#include <cstdint>

#include "kernels/cuda/cuda_conv_map_kernels.h"
#include "kernels/cuda/cuda_grid.h"

namespace ablate::kernels::cuda {

// One thread per y element: bias[o] (bias may be null) + its connections' taps, in table order.
template <class T> struct ConvMapForwardKernel {
  MapGeometry g;
  const T* x;
  const T* w;
  const T* bias;
  const std::int32_t* table;
  MapGroups by_output;
  T* y;
  Grid grid() const { return grid_stride_grid(g.N * g.K * g.OH * g.OW); }
  ABLATE_HOST_DEVICE void operator()(const ThreadIndex& t) const {
    ABLATE_GRID_LOOP(idx, g.N * g.K * g.OH * g.OW, t) {
      const std::int64_t ow = idx % g.OW, oh = (idx / g.OW) % g.OH, o = (idx / (g.OW * g.OH)) % g.K,
                         n = idx / (g.OW * g.OH * g.K);
      double acc = bias ? double(bias[o]) : 0.0;
      for (std::int32_t j = by_output.offsets[o]; j < by_output.offsets[o + 1]; ++j) {
        const std::int64_t c = by_output.order[j], i = table[2 * c];
        const T* plane = x + (n * g.C + i) * g.H * g.W;
        const T* k = w + c * g.KH * g.KW;
        for (std::int64_t a = 0; a < g.KH; ++a) {
          const std::int64_t h = oh * g.stride_h - g.pad_top + a;
          if (h < 0 || h >= g.H) continue;
          for (std::int64_t b = 0; b < g.KW; ++b) {
            const std::int64_t col = ow * g.stride_w - g.pad_left + b;
            if (col < 0 || col >= g.W) continue;
            acc += double(plane[h * g.W + col]) * double(k[a * g.KW + b]);
          }
        }
      }
      y[idx] = T(acc);
    }
  }
};

// One thread per dx element: the taps of its input plane's connections that read it.
template <class T> struct ConvMapBackwardDataKernel {
  MapGeometry g;
  const T* dy;
  const T* w;
  const std::int32_t* table;
  MapGroups by_input;
  T* dx;
  Grid grid() const { return grid_stride_grid(g.N * g.C * g.H * g.W); }
  ABLATE_HOST_DEVICE void operator()(const ThreadIndex& t) const {
    ABLATE_GRID_LOOP(idx, g.N * g.C * g.H * g.W, t) {
      const std::int64_t col = idx % g.W, row = (idx / g.W) % g.H, i = (idx / (g.W * g.H)) % g.C,
                         n = idx / (g.W * g.H * g.C);
      double acc = 0;
      for (std::int32_t j = by_input.offsets[i]; j < by_input.offsets[i + 1]; ++j) {
        const std::int64_t c = by_input.order[j], o = table[2 * c + 1];
        const T* plane = dy + (n * g.K + o) * g.OH * g.OW;
        const T* k = w + c * g.KH * g.KW;
        for (std::int64_t a = 0; a < g.KH; ++a) {
          const std::int64_t hs = row + g.pad_top - a;  // = oh * stride_h
          if (hs < 0 || hs % g.stride_h != 0 || hs / g.stride_h >= g.OH) continue;
          const std::int64_t oh = hs / g.stride_h;
          for (std::int64_t b = 0; b < g.KW; ++b) {
            const std::int64_t ws = col + g.pad_left - b;
            if (ws < 0 || ws % g.stride_w != 0 || ws / g.stride_w >= g.OW) continue;
            acc += double(plane[oh * g.OW + ws / g.stride_w]) * double(k[a * g.KW + b]);
          }
        }
      }
      dx[idx] = T(acc);
    }
  }
};

// One block per (connection, tap): block_x the connection, block_y the tap a * KW + b; each
// thread sums a strided share of (n, oh, ow).
template <class T> struct ConvMapBackwardWeightsKernel {
  static constexpr int kPhases = 1;
  using Partial = Sums<1>;
  MapGeometry g;
  const T* x;
  const T* dy;
  const std::int32_t* table;
  T* dw;
  Grid grid() const { return block_per(g.T, g.KH * g.KW); }  // empty when either is 0
  ABLATE_HOST_DEVICE Partial partial(const ThreadIndex& t, int, const Partial*) const {
    const std::int64_t c = t.block_x, a = t.block_y / g.KW, b = t.block_y % g.KW;
    const std::int64_t i = table[2 * c], o = table[2 * c + 1];
    double s = 0;
    ABLATE_BLOCK_LOOP(j, g.N * g.OH * g.OW, t) {
      const std::int64_t ow = j % g.OW, oh = (j / g.OW) % g.OH, n = j / (g.OW * g.OH);
      const std::int64_t h = oh * g.stride_h - g.pad_top + a, col = ow * g.stride_w - g.pad_left + b;
      if (h < 0 || h >= g.H || col < 0 || col >= g.W) continue;
      s += double(x[((n * g.C + i) * g.H + h) * g.W + col]) * double(dy[((n * g.K + o) * g.OH + oh) * g.OW + ow]);
    }
    return {{s}};
  }
  ABLATE_HOST_DEVICE void finish(const ThreadIndex& t, const Partial* totals) const {
    dw[t.block_x * g.KH * g.KW + t.block_y] = T(totals[0].v[0]);
  }
};

}  // namespace ablate::kernels::cuda
