// LRN across channels of channel-blocked tensors, a pixel's channels at a time (lrn_blocked.h).
// The window sums add the same terms in the same order as the NCHW loops (lrn.cpp; the zero
// padding adds exact zeros); the results differ from theirs by rounding: k + a * sum may be
// one fused multiply-add in the vector loop.
#include "kernels/cpu/lrn_blocked.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "kernels/cpu/dtype_dispatch.h"
#include "kernels/cpu/lrn_math.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/cpu/scratch.h"

namespace ablate::kernels::cpu {
namespace {

// One call's geometry: images, channels C in blocks of B, pixels S = H * W per channel, and
// the window: size channels from `pre` before the centre.
struct Geometry {
  std::int64_t n, c, s;
  int block;
  int size, pre;

  std::int64_t blocks() const { return c / block; }
  std::int64_t pixels() const { return n * s; }
  // Where block 0 of pixel `px` (= image * S + s) starts, ((image * C/B) * S + s) * B; block j
  // starts j * S * B after it.
  std::int64_t start(std::int64_t px) const { return ((px / s) * blocks() * s + px % s) * block; }
  std::int64_t block_stride() const { return s * block; }
};

Geometry geometry_of(const Tensor& x, const LrnParams& p, const char* what) {
  if (x.ndim() != 4 || x.channel_block() <= 0)
    throw std::invalid_argument(std::string(what) + " of " + x.describe() + ": expected a channel-blocked [N, C, H, W]");
  return {x.dim(0), x.dim(1), x.dim(2) * x.dim(3), x.channel_block(), p.size, (p.size - 1) / 2};
}

// row[c] = t(pixel at `start`, channel c), c in [0, C).
template <class T> void gather(const Geometry& g, const T* t, std::int64_t start, T* row) {
  for (std::int64_t j = 0; j < g.blocks(); ++j) {
    const T* from = t + start + j * g.block_stride();
#pragma omp simd
    for (int l = 0; l < g.block; ++l) row[j * g.block + l] = from[l];
  }
}

template <class T> void scatter(const Geometry& g, const T* row, std::int64_t start, T* t) {
  for (std::int64_t j = 0; j < g.blocks(); ++j) {
    T* to = t + start + j * g.block_stride();
#pragma omp simd
    for (int l = 0; l < g.block; ++l) to[l] = row[j * g.block + l];
  }
}

// out[c] = sum_{d < size} padded[c + d], c in [0, C): `size` passes of vector adds (a register
// sum per channel over the window, the loops interchanged, ran 1.7x slower: GCC vectorised it
// worse).
template <class T> void window_sums(std::int64_t channels, int size, const T* padded, T* out) {
  for (std::int64_t c = 0; c < channels; ++c) out[c] = T(0);
  for (int d = 0; d < size; ++d) {
    const T* from = padded + d;
#pragma omp simd
    for (std::int64_t c = 0; c < channels; ++c) out[c] += from[c];
  }
}

// Pixels whose rows are gathered before any is summed: the window sums read a row at 'size'
// unaligned offsets, which, right after the row's stores, wait for them (store forwarding).
constexpr std::int64_t kPixelTile = 8;

// A thread's rows: `count` rows of C + size - 1 elements (room for a padded row).
template <class T> T* rows(const Geometry& g, int count) {
  return scratch_of<T>(ScratchSlot::layout_in, static_cast<std::size_t>(count * (g.c + g.size - 1)));
}

}  // namespace

void lrn_blocked_forward(int threads, const Tensor& x, Tensor& y, Tensor& workspace, const LrnParams& p) {
  const Geometry g = geometry_of(x, p, "blocked lrn_forward");
  if (workspace.empty() || workspace.dtype() != x.dtype() || workspace.shape() != x.shape() ||
      workspace.channel_block() != x.channel_block())
    workspace = Tensor(x.shape(), x.dtype()).with_channel_block(x.channel_block());
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T a = static_cast<T>(p.alpha / p.size), k = static_cast<T>(p.k), beta = static_cast<T>(p.beta);
    const T* in = x.data<T>();
    T *out = y.data<T>(), *scale_out = workspace.data<T>();
    const std::int64_t width = g.c + g.size - 1;
    parallel_for(threads, g.pixels(), row_grain(g.c * g.size), [&](std::int64_t begin, std::int64_t end) {
      // Rows of kPixelTile pixels: xr and squares (zero padding kept) for each, then scale and
      // factor, one pixel at a time.
      T* const base = rows<T>(g, 2 * kPixelTile + 2);
      T *xr = base, *squares = base + kPixelTile * width, *scale = base + 2 * kPixelTile * width,
        *factor = scale + width;
      for (std::int64_t i = 0; i < kPixelTile * width; ++i) squares[i] = T(0);  // the padding stays zero
      for (std::int64_t px0 = begin; px0 < end; px0 += kPixelTile) {
        const std::int64_t tile = std::min<std::int64_t>(kPixelTile, end - px0);
        for (std::int64_t t = 0; t < tile; ++t) {
          T *x_t = xr + t * width, *sq = squares + t * width + g.pre;
          gather(g, in, g.start(px0 + t), x_t);
#pragma omp simd
          for (std::int64_t c = 0; c < g.c; ++c) sq[c] = x_t[c] * x_t[c];
        }
        for (std::int64_t t = 0; t < tile; ++t) {
          const T* x_t = xr + t * width;
          window_sums(g.c, g.size, squares + t * width, scale);
#pragma omp simd
          for (std::int64_t c = 0; c < g.c; ++c) scale[c] = k + a * scale[c];
          pow_minus_beta(g.c, scale, beta, factor);
#pragma omp simd
          for (std::int64_t c = 0; c < g.c; ++c) factor[c] *= x_t[c];
          const std::int64_t at = g.start(px0 + t);
          scatter(g, factor, at, out);
          scatter(g, scale, at, scale_out);
        }
      }
    });
  });
}

void lrn_blocked_backward(int threads, const Tensor& x, const Tensor& y, const Tensor& dy, const Tensor& workspace,
                          Tensor& dx, const LrnParams& p) {
  const Geometry g = geometry_of(x, p, "blocked lrn_backward");
  if (workspace.shape() != x.shape() || workspace.dtype() != x.dtype() || workspace.channel_block() != x.channel_block())
    throw std::invalid_argument("blocked lrn_backward: workspace " + workspace.describe() +
                                " is not the scale that lrn_forward filled for " + x.describe());
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T coeff = static_cast<T>(2.0 * p.alpha * p.beta / p.size), beta = static_cast<T>(p.beta);
    const T *in = x.data<T>(), *out = y.data<T>(), *grad = dy.data<T>(), *scale_in = workspace.data<T>();
    T* d = dx.data<T>();
    const std::int64_t width = g.c + g.size - 1, left = g.size - 1 - g.pre;  // ratio's padding before channel 0
    parallel_for(threads, g.pixels(), row_grain(g.c * g.size), [&](std::int64_t begin, std::int64_t end) {
      // Rows of kPixelTile pixels: x, y, dy, scale and the padded ratio for each, then the
      // window sums one pixel at a time.
      T* const base = rows<T>(g, 5 * kPixelTile + 1);
      T *xr = base, *yr = base + kPixelTile * width, *gr = base + 2 * kPixelTile * width;
      T *scale = base + 3 * kPixelTile * width, *ratio = base + 4 * kPixelTile * width, *acc = base + 5 * kPixelTile * width;
      for (std::int64_t i = 0; i < kPixelTile * width; ++i) ratio[i] = T(0);
      for (std::int64_t px0 = begin; px0 < end; px0 += kPixelTile) {
        const std::int64_t tile = std::min<std::int64_t>(kPixelTile, end - px0);
        for (std::int64_t t = 0; t < tile; ++t) {
          const std::int64_t at = g.start(px0 + t), row = t * width;
          gather(g, in, at, xr + row);
          gather(g, out, at, yr + row);
          gather(g, grad, at, gr + row);
          gather(g, scale_in, at, scale + row);
          T* r = ratio + row + left;
#pragma omp simd
          for (std::int64_t c = 0; c < g.c; ++c) r[c] = gr[row + c] * yr[row + c] / scale[row + c];
        }
        for (std::int64_t t = 0; t < tile; ++t) {
          const std::int64_t row = t * width;
          // c is in W(c') for c' in [c + pre - size + 1, c + pre]: padded indices [c, c + size)
          window_sums(g.c, g.size, ratio + row, acc);
          T* f = yr + row;  // y's row is not read again: scale^-beta
          pow_minus_beta(g.c, scale + row, beta, f);
#pragma omp simd
          for (std::int64_t c = 0; c < g.c; ++c) acc[c] = gr[row + c] * f[c] - coeff * xr[row + c] * acc[c];
          scatter(g, acc, g.start(px0 + t), d);
        }
      }
    });
  });
}

}  // namespace ablate::kernels::cpu
