// Pooling of channel-blocked tensors, one block-plane [H, W, B] at a time (pool2d_blocked.h).
// Within a plane the B lanes of a cell are pooled in chunks of a compile-time width (a vector
// register's worth): one chunk of 8 or 16 for the library's blocks, 16, 8, 4, 2, 1 lanes in
// turn for a channels-last block of any C (LeNet's 20 = 16 + 4).
#include "kernels/cpu/pool2d_blocked.h"

#include <algorithm>
#include <stdexcept>
#include <type_traits>

#include "kernels/cpu/dtype_dispatch.h"
#include "kernels/cpu/fixed_widths.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/cpu/pool_windows.h"

namespace ablate::kernels::cpu {
namespace {

// One call's geometry: block-planes (N x C / B), their [H, W] and [OH, OW] cells, the windows,
// and the block B (the lanes of a cell, its stride in memory).
struct Blocked {
  PoolGeometry g;
  Windows win;
  std::int64_t in_cells, out_cells;
  int block;
};

Blocked blocked_geometry(const Tensor& x, const Pool2dParams& p) {
  if (x.channel_block() <= 0)
    throw std::invalid_argument("blocked pooling of " + x.describe() + ": expected a channel-blocked tensor");
  Blocked b{pool_geometry(x, p), {}, 0, 0, x.channel_block()};
  b.g.planes /= x.channel_block();
  b.win = windows_of(b.g, p);
  b.in_cells = b.g.h * b.g.w;
  b.out_cells = b.g.oh * b.g.ow;
  return b;
}

// Lanes [l0, l0 + W) of one block-plane: x at in0 + cell * B + l, y at out0 + cell * B + l.
struct Chunk {
  std::int64_t in0, out0;
  int l0;
};

// Runs body(chunk) for every block-plane over the threads, and within each for its lanes in
// chunks of a compile-time width W (std::integral_constant<int, W>; fixed_widths.h).
template <class F> void each_chunk(int threads, const Blocked& k, F&& body) {
  const int B = k.block;
  parallel_for(threads, k.g.planes, std::max<std::int64_t>(1, row_grain(k.in_cells * B)), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t plane = b; plane < e; ++plane) {
      const std::int64_t in0 = plane * k.in_cells * B, out0 = plane * k.out_cells * B;
      in_fixed_widths(B, [&](auto width, std::int64_t l0) { body(width, Chunk{in0, out0, static_cast<int>(l0)}); });
    }
  });
}

// Two passes over each window, each a plain vector loop: the maximum, then where it first
// occurs (the cells in reverse, so the first in row-major order is written last; a NaN first
// cell stays the answer, as under the NCHW loop's strict >).
template <class T, int W>
void max_forward(const Blocked& k, Chunk c, const T* __restrict x, T* __restrict y, std::int32_t* __restrict arg) {
  const int B = k.block;
  for (std::int64_t oh = 0; oh < k.g.oh; ++oh)
    for (std::int64_t ow = 0; ow < k.g.ow; ++ow) {
      const std::int64_t o = c.out0 + (oh * k.g.ow + ow) * B + c.l0;
      const std::int64_t h0 = k.win.h.lo[oh], h1 = k.win.h.hi[oh], w0 = k.win.w.lo[ow], w1 = k.win.w.hi[ow];
      if (h0 >= h1 || w0 >= w1) {  // a window wholly in the padding gives 0
        for (int l = 0; l < W; ++l) {
          y[o + l] = T(0);
          arg[o + l] = -1;
        }
        continue;
      }
      const T* first = x + c.in0 + (h0 * k.g.w + w0) * B + c.l0;
      T best[W];
      for (int l = 0; l < W; ++l) best[l] = first[l];
      for (std::int64_t h = h0; h < h1; ++h)
        for (std::int64_t w = w0; w < w1; ++w) {
          const T* v = x + c.in0 + (h * k.g.w + w) * B + c.l0;
#pragma omp simd
          for (int l = 0; l < W; ++l) best[l] = v[l] > best[l] ? v[l] : best[l];
        }
      std::int32_t where[W];
      for (int l = 0; l < W; ++l) where[l] = static_cast<std::int32_t>(h0 * k.g.w + w0);
      for (std::int64_t h = h1 - 1; h >= h0; --h)
        for (std::int64_t w = w1 - 1; w >= w0; --w) {
          const T* v = x + c.in0 + (h * k.g.w + w) * B + c.l0;
          const auto at = static_cast<std::int32_t>(h * k.g.w + w);
#pragma omp simd
          for (int l = 0; l < W; ++l) where[l] = v[l] == best[l] ? at : where[l];
        }
      for (int l = 0; l < W; ++l) {
        y[o + l] = best[l];
        arg[o + l] = where[l];
      }
    }
}

template <class T, int W> void avg_forward(const Blocked& k, Chunk c, const T* x, T* y) {
  const int B = k.block;
  for (std::int64_t oh = 0; oh < k.g.oh; ++oh)
    for (std::int64_t ow = 0; ow < k.g.ow; ++ow) {
      T sum[W] = {};
      for (std::int64_t h = k.win.h.lo[oh]; h < k.win.h.hi[oh]; ++h)
        for (std::int64_t w = k.win.w.lo[ow]; w < k.win.w.hi[ow]; ++w) {
          const T* v = x + c.in0 + (h * k.g.w + w) * B + c.l0;
#pragma omp simd
          for (int l = 0; l < W; ++l) sum[l] += v[l];
        }
      const std::int64_t divisor = k.win.h.count[oh] * k.win.w.count[ow];
      T* out = y + c.out0 + (oh * k.g.ow + ow) * B + c.l0;
      for (int l = 0; l < W; ++l) out[l] = divisor > 0 ? sum[l] / static_cast<T>(divisor) : T(0);
    }
}

// The backward passes: the chunk's lanes of dx's block-plane zeroed, then each output cell's
// dy added to its cells.
template <class T, int W> void zero_lanes(const Blocked& k, Chunk c, T* dx) {
  for (std::int64_t i = 0; i < k.in_cells; ++i)
    for (int l = 0; l < W; ++l) dx[c.in0 + i * k.block + c.l0 + l] = T(0);
}

template <class T, int W>
void max_backward(const Blocked& k, Chunk c, const T* dy, const std::int32_t* arg, T* dx) {
  const int B = k.block;
  zero_lanes<T, W>(k, c, dx);
  for (std::int64_t cell = 0; cell < k.out_cells; ++cell) {
    const std::int64_t o = c.out0 + cell * B + c.l0;
    for (int l = 0; l < W; ++l)
      if (arg[o + l] >= 0) dx[c.in0 + arg[o + l] * B + c.l0 + l] += dy[o + l];
  }
}

template <class T, int W>
void max_backward_all(const Blocked& k, Chunk c, const T* x, const T* y, const T* dy, T* dx) {
  const int B = k.block;
  zero_lanes<T, W>(k, c, dx);
  for (std::int64_t oh = 0; oh < k.g.oh; ++oh)
    for (std::int64_t ow = 0; ow < k.g.ow; ++ow) {
      const std::int64_t o = c.out0 + (oh * k.g.ow + ow) * B + c.l0;
      for (std::int64_t h = k.win.h.lo[oh]; h < k.win.h.hi[oh]; ++h)
        for (std::int64_t w = k.win.w.lo[ow]; w < k.win.w.hi[ow]; ++w) {
          const std::int64_t i = c.in0 + (h * k.g.w + w) * B + c.l0;
#pragma omp simd
          for (int l = 0; l < W; ++l) dx[i + l] += x[i + l] == y[o + l] ? dy[o + l] : T(0);
        }
    }
}

template <class T, int W> void avg_backward(const Blocked& k, Chunk c, const T* dy, T* dx) {
  const int B = k.block;
  zero_lanes<T, W>(k, c, dx);
  for (std::int64_t oh = 0; oh < k.g.oh; ++oh)
    for (std::int64_t ow = 0; ow < k.g.ow; ++ow) {
      const std::int64_t divisor = k.win.h.count[oh] * k.win.w.count[ow];
      if (divisor <= 0) continue;
      T share[W];
      for (int l = 0; l < W; ++l) share[l] = dy[c.out0 + (oh * k.g.ow + ow) * B + c.l0 + l] / static_cast<T>(divisor);
      for (std::int64_t h = k.win.h.lo[oh]; h < k.win.h.hi[oh]; ++h)
        for (std::int64_t w = k.win.w.lo[ow]; w < k.win.w.hi[ow]; ++w) {
          T* d = dx + c.in0 + (h * k.g.w + w) * B + c.l0;
#pragma omp simd
          for (int l = 0; l < W; ++l) d[l] += share[l];
        }
    }
}

}  // namespace

void pool2d_blocked_forward(int threads, const Tensor& x, Tensor& y, Tensor& workspace, const Pool2dParams& p) {
  const Blocked k = blocked_geometry(x, p);
  if (p.kind == PoolKind::max && (workspace.empty() || workspace.dtype() != DType::i32 || workspace.shape() != y.shape()))
    workspace = Tensor(y.shape(), DType::i32);
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    each_chunk(threads, k, [&](auto width, Chunk c) {
      constexpr int W = decltype(width)::value;
      if (p.kind == PoolKind::avg)
        avg_forward<T, W>(k, c, x.data<T>(), y.data<T>());
      else
        max_forward<T, W>(k, c, x.data<T>(), y.data<T>(), workspace.data<std::int32_t>());
    });
  });
}

void pool2d_blocked_backward(int threads, PoolGradient gradient, const Tensor& x, const Tensor& y, const Tensor& dy,
                             const Tensor& workspace, Tensor& dx, const Pool2dParams& p) {
  const Blocked k = blocked_geometry(x, p);
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    each_chunk(threads, k, [&](auto width, Chunk c) {
      constexpr int W = decltype(width)::value;
      if (p.kind == PoolKind::avg)
        avg_backward<T, W>(k, c, dy.data<T>(), dx.data<T>());
      else if (gradient == PoolGradient::all)
        max_backward_all<T, W>(k, c, x.data<T>(), y.data<T>(), dy.data<T>(), dx.data<T>());
      else
        max_backward<T, W>(k, c, dy.data<T>(), workspace.data<std::int32_t>(), dx.data<T>());
    });
  });
}

}  // namespace ablate::kernels::cpu
