// Pooling of channel-blocked tensors, one block-plane [H, W, B] at a time (pool2d_blocked.h).
#include "kernels/cpu/pool2d_blocked.h"

#include <algorithm>
#include <stdexcept>

#include "kernels/cpu/dtype_dispatch.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/cpu/pool_windows.h"

namespace ablate::kernels::cpu {
namespace {

// One call's geometry: block-planes (N x C / B), their [H, W] and [OH, OW] cells, the windows.
struct Blocked {
  PoolGeometry g;
  Windows win;
  std::int64_t in_cells, out_cells;
};

Blocked blocked_geometry(const Tensor& x, const Pool2dParams& p) {
  Blocked b{pool_geometry(x, p), {}, 0, 0};
  b.g.planes /= x.channel_block();
  b.win = windows_of(b.g, p);
  b.in_cells = b.g.h * b.g.w;
  b.out_cells = b.g.oh * b.g.ow;
  return b;
}

// Runs body(in-plane, out-plane, plane index) for every block-plane over the threads.
template <int B, class F> void each_plane(int threads, const Blocked& k, F&& body) {
  parallel_for(threads, k.g.planes, std::max<std::int64_t>(1, row_grain(k.in_cells * B)), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t plane = b; plane < e; ++plane) body(plane * k.in_cells * B, plane * k.out_cells * B);
  });
}

template <class T, int B>
void max_forward(int threads, const Blocked& k, const T* x, T* y, std::int32_t* arg) {
  each_plane<B>(threads, k, [&](std::int64_t in0, std::int64_t out0) {
    for (std::int64_t oh = 0; oh < k.g.oh; ++oh)
      for (std::int64_t ow = 0; ow < k.g.ow; ++ow) {
        const std::int64_t o = out0 + (oh * k.g.ow + ow) * B;
        const std::int64_t h0 = k.win.h.lo[oh], h1 = k.win.h.hi[oh], w0 = k.win.w.lo[ow], w1 = k.win.w.hi[ow];
        T best[B];
        std::int32_t where[B];
        const bool empty = h0 >= h1 || w0 >= w1;  // a window wholly in the padding gives 0
        for (int l = 0; l < B; ++l) {
          best[l] = empty ? T(0) : x[in0 + (h0 * k.g.w + w0) * B + l];
          where[l] = empty ? -1 : static_cast<std::int32_t>(h0 * k.g.w + w0);
        }
        for (std::int64_t h = h0; h < h1; ++h)
          for (std::int64_t w = w0; w < w1; ++w) {
            const T* v = x + in0 + (h * k.g.w + w) * B;
            const auto at = static_cast<std::int32_t>(h * k.g.w + w);
#pragma omp simd
            for (int l = 0; l < B; ++l) {  // strict >: the first largest in row-major order wins
              const bool larger = v[l] > best[l];
              best[l] = larger ? v[l] : best[l];
              where[l] = larger ? at : where[l];
            }
          }
        for (int l = 0; l < B; ++l) {
          y[o + l] = best[l];
          arg[o + l] = where[l];
        }
      }
  });
}

template <class T, int B> void avg_forward(int threads, const Blocked& k, const T* x, T* y) {
  each_plane<B>(threads, k, [&](std::int64_t in0, std::int64_t out0) {
    for (std::int64_t oh = 0; oh < k.g.oh; ++oh)
      for (std::int64_t ow = 0; ow < k.g.ow; ++ow) {
        T sum[B] = {};
        for (std::int64_t h = k.win.h.lo[oh]; h < k.win.h.hi[oh]; ++h)
          for (std::int64_t w = k.win.w.lo[ow]; w < k.win.w.hi[ow]; ++w) {
            const T* v = x + in0 + (h * k.g.w + w) * B;
#pragma omp simd
            for (int l = 0; l < B; ++l) sum[l] += v[l];
          }
        const std::int64_t divisor = k.win.h.count[oh] * k.win.w.count[ow];
        T* out = y + out0 + (oh * k.g.ow + ow) * B;
        for (int l = 0; l < B; ++l) out[l] = divisor > 0 ? sum[l] / static_cast<T>(divisor) : T(0);
      }
  });
}

// The backward passes: dx's block-plane zeroed, then each output cell's dy added to its cells.
template <class T, int B>
void max_backward(int threads, const Blocked& k, const T* dy, const std::int32_t* arg, T* dx) {
  each_plane<B>(threads, k, [&](std::int64_t in0, std::int64_t out0) {
    std::fill(dx + in0, dx + in0 + k.in_cells * B, T(0));
    for (std::int64_t c = 0; c < k.out_cells * B; ++c)
      if (arg[out0 + c] >= 0) dx[in0 + arg[out0 + c] * B + c % B] += dy[out0 + c];
  });
}

template <class T, int B>
void max_backward_all(int threads, const Blocked& k, const T* x, const T* y, const T* dy, T* dx) {
  each_plane<B>(threads, k, [&](std::int64_t in0, std::int64_t out0) {
    std::fill(dx + in0, dx + in0 + k.in_cells * B, T(0));
    for (std::int64_t oh = 0; oh < k.g.oh; ++oh)
      for (std::int64_t ow = 0; ow < k.g.ow; ++ow) {
        const std::int64_t o = out0 + (oh * k.g.ow + ow) * B;
        for (std::int64_t h = k.win.h.lo[oh]; h < k.win.h.hi[oh]; ++h)
          for (std::int64_t w = k.win.w.lo[ow]; w < k.win.w.hi[ow]; ++w) {
            const std::int64_t i = in0 + (h * k.g.w + w) * B;
#pragma omp simd
            for (int l = 0; l < B; ++l) dx[i + l] += x[i + l] == y[o + l] ? dy[o + l] : T(0);
          }
      }
  });
}

template <class T, int B> void avg_backward(int threads, const Blocked& k, const T* dy, T* dx) {
  each_plane<B>(threads, k, [&](std::int64_t in0, std::int64_t out0) {
    std::fill(dx + in0, dx + in0 + k.in_cells * B, T(0));
    for (std::int64_t oh = 0; oh < k.g.oh; ++oh)
      for (std::int64_t ow = 0; ow < k.g.ow; ++ow) {
        const std::int64_t divisor = k.win.h.count[oh] * k.win.w.count[ow];
        if (divisor <= 0) continue;
        T share[B];
        for (int l = 0; l < B; ++l) share[l] = dy[out0 + (oh * k.g.ow + ow) * B + l] / static_cast<T>(divisor);
        for (std::int64_t h = k.win.h.lo[oh]; h < k.win.h.hi[oh]; ++h)
          for (std::int64_t w = k.win.w.lo[ow]; w < k.win.w.hi[ow]; ++w) {
            T* d = dx + in0 + (h * k.g.w + w) * B;
#pragma omp simd
            for (int l = 0; l < B; ++l) d[l] += share[l];
          }
      }
  });
}

// Calls f with the block as a compile-time constant (8: AVX2's nChw8c, 16: AVX-512's nChw16c).
template <class F> void with_block(int block, F&& f) {
  if (block == 16) return f(std::integral_constant<int, 16>{});
  if (block == 8) return f(std::integral_constant<int, 8>{});
  throw std::invalid_argument("blocked pooling: channel block " + std::to_string(block) + "; expected 8 or 16");
}

}  // namespace

void pool2d_blocked_forward(int threads, const Tensor& x, Tensor& y, Tensor& workspace, const Pool2dParams& p) {
  const Blocked k = blocked_geometry(x, p);
  if (p.kind == PoolKind::max && (workspace.empty() || workspace.dtype() != DType::i32 || workspace.shape() != y.shape()))
    workspace = Tensor(y.shape(), DType::i32);
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    with_block(x.channel_block(), [&](auto block) {
      constexpr int B = decltype(block)::value;
      if (p.kind == PoolKind::avg)
        avg_forward<T, B>(threads, k, x.data<T>(), y.data<T>());
      else
        max_forward<T, B>(threads, k, x.data<T>(), y.data<T>(), workspace.data<std::int32_t>());
    });
  });
}

void pool2d_blocked_backward(int threads, PoolGradient gradient, const Tensor& x, const Tensor& y, const Tensor& dy,
                             const Tensor& workspace, Tensor& dx, const Pool2dParams& p) {
  const Blocked k = blocked_geometry(x, p);
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    with_block(x.channel_block(), [&](auto block) {
      constexpr int B = decltype(block)::value;
      if (p.kind == PoolKind::avg)
        avg_backward<T, B>(threads, k, dy.data<T>(), dx.data<T>());
      else if (gradient == PoolGradient::all)
        max_backward_all<T, B>(threads, k, x.data<T>(), y.data<T>(), dy.data<T>(), dx.data<T>());
      else
        max_backward<T, B>(threads, k, dy.data<T>(), workspace.data<std::int32_t>(), dx.data<T>());
    });
  });
}

}  // namespace ablate::kernels::cpu
