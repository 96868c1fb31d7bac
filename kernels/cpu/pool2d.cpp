// Max and average pooling over each [H,W] plane, as Caffe's PoolingLayer (and Torch's
// SpatialMaxPooling / SpatialAveragePooling, TF's SAME pooling) with the geometry resolved in
// Pool2dParams (op_params.h). Output cell (oh, ow) reads the window
//   rows [oh*stride_h - pad_top, + kernel_h) and columns [ow*stride_w - pad_left, + kernel_w)
// clipped to the image. Max: the first largest value wins; the workspace holds its index
// h*W + w in the plane (i32, shape of y), which backward routes dy to (Caffe's mask), or with
// pool_gradient() all every cell equal to y gets dy (Theano's MaxPoolGrad).
// Average: the sum over the clipped window divided by the window clipped to
// [-pad_top, H + pad_bottom_limit) x [-pad_left, W + pad_right_limit) when avg_count_padding
// (Caffe, Torch), or by the number of real cells otherwise (TF SAME); backward spreads
// dy / divisor over the real cells. Forward runs the cells whose windows lie wholly inside the
// image as vector code, a row's run at a time (each_output_row below); 2x2 windows at stride 2
// (LeNet's) have loops of their own (max_forward_2x2, max_backward_2x2).
#include <algorithm>
#include <type_traits>
#include <vector>

#include "kernels/contract/op_check.h"
#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/dtype_dispatch.h"
#include "kernels/cpu/fixed_widths.h"
#include "kernels/cpu/max_pool_2x2_rows.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/cpu/pool_cells.h"
#include "kernels/cpu/pool_windows.h"

namespace ablate::kernels::cpu {
namespace {

// Planes per parallel chunk: enough cells to be worth a region.
std::int64_t plane_grain(const PoolGeometry& g) { return row_grain(g.h * g.w); }

// The columns where the windows lie wholly inside the image, [cols.lo, cols.hi) (windows move
// monotonically, so the full ones are one run). Those cells of a row run as vector code
// (pool_cells.h) in chunks of compile-time width, the last overlapping the one before
// (fixed_widths.h): for each tap, one strided read per cell. A row whose windows are clipped in
// height (Caffe's ceil rounding and TF's SAME padding clip the last) does the same over the
// rows inside the image. The other cells (clipped in width, or wholly in the padding) take the
// per-cell path over their clipped window.
struct Span {
  std::int64_t lo, hi;
};
Span full_span(const AxisWindows& a, int kernel) {
  std::int64_t lo = 0, hi = static_cast<std::int64_t>(a.lo.size());
  while (lo < hi && a.hi[static_cast<std::size_t>(lo)] - a.lo[static_cast<std::size_t>(lo)] < kernel) ++lo;
  while (hi > lo && a.hi[static_cast<std::size_t>(hi - 1)] - a.lo[static_cast<std::size_t>(hi - 1)] < kernel) --hi;
  return {lo, hi};
}

// Per output row, its windows' taps as offsets i * W + j from their first cell inside the image,
// row-major over the rows [lo, hi) inside it and every column (empty: no row inside).
std::vector<std::vector<std::int32_t>> row_taps(const PoolGeometry& g, const Pool2dParams& p, const Windows& win) {
  std::vector<std::vector<std::int32_t>> out(static_cast<std::size_t>(g.oh));
  for (std::int64_t oh = 0; oh < g.oh; ++oh)
    for (std::int64_t i = 0; i < win.h.hi[oh] - win.h.lo[oh]; ++i)
      for (std::int64_t j = 0; j < p.kernel_w; ++j) out[static_cast<std::size_t>(oh)].push_back(static_cast<std::int32_t>(i * g.w + j));
  return out;
}

// For each output row oh of one plane: full(width, oh, ow0, at, taps) over the row's cells of
// full width in chunks of compile-time width (at = the plane index of cell ow0's first cell
// inside the image, taps = the row's), and clipped(oh, ow) for each other cell.
template <class Full, class Clipped>
void each_output_row(const PoolGeometry& g, const Pool2dParams& p, const Windows& win,
                     const std::vector<std::vector<std::int32_t>>& taps, Full&& full, Clipped&& clipped) {
  const Span cols = full_span(win.w, p.kernel_w);
  for (std::int64_t oh = 0; oh < g.oh; ++oh) {
    const std::vector<std::int32_t>& row = taps[static_cast<std::size_t>(oh)];
    if (row.empty() || cols.lo >= cols.hi) {
      for (std::int64_t ow = 0; ow < g.ow; ++ow) clipped(oh, ow);
      continue;
    }
    for (std::int64_t ow = 0; ow < cols.lo; ++ow) clipped(oh, ow);
    const std::int64_t row_start = win.h.lo[oh] * g.w - p.pad_left;
    in_overlapping_widths(cols.hi - cols.lo, [&](auto width, std::int64_t first) {
      const std::int64_t ow0 = cols.lo + first;
      full(width, oh, ow0, static_cast<std::int32_t>(row_start + ow0 * p.stride_w), row);
    });
    for (std::int64_t ow = cols.hi; ow < g.ow; ++ow) clipped(oh, ow);
  }
}

// Max of one output cell over its clipped window: the first largest value in row-major order.
template <class T>
void max_cell(const T* in, std::int64_t width, std::int64_t h0, std::int64_t h1, std::int64_t w0, std::int64_t w1, T& out,
              std::int32_t& idx) {
  if (h0 >= h1 || w0 >= w1) {  // a window wholly in the padding gives 0
    out = T(0);
    idx = -1;
    return;
  }
  std::int64_t where = h0 * width + w0;
  T best = in[where];
  for (std::int64_t h = h0; h < h1; ++h)
    for (std::int64_t w = w0; w < w1; ++w)
      if (in[h * width + w] > best) {
        best = in[h * width + w];
        where = h * width + w;
      }
  out = best;
  idx = static_cast<std::int32_t>(where);
}

template <class T>
void max_forward(int threads, const PoolGeometry& g, const Pool2dParams& p, const Windows& win, const T* x, T* y,
                 std::int32_t* arg) {
  const auto taps = row_taps(g, p, win);
  const std::int64_t cells = g.oh * g.ow;
  const auto stride = static_cast<std::int32_t>(p.stride_w);
  parallel_for(threads, g.planes, plane_grain(g), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t plane = b; plane < e; ++plane) {
      const T* in = x + plane * g.h * g.w;
      T* out = y + plane * cells;
      std::int32_t* idx = arg + plane * cells;
      each_output_row(
          g, p, win, taps,
          [&](auto width, std::int64_t oh, std::int64_t ow0, std::int32_t at, const std::vector<std::int32_t>& taps) {
            const std::int64_t o = oh * g.ow + ow0;
            constexpr int L = decltype(width)::value;
            if (stride == 1) pool_cells::max_cells<L, 1>(in, at, stride, taps, out + o, idx + o);
            else if (stride == 2) pool_cells::max_cells<L, 2>(in, at, stride, taps, out + o, idx + o);
            else pool_cells::max_cells<L, 0>(in, at, stride, taps, out + o, idx + o);
          },
          [&](std::int64_t oh, std::int64_t ow) {
            const std::int64_t o = oh * g.ow + ow;
            max_cell(in, g.w, win.h.lo[oh], win.h.hi[oh], win.w.lo[ow], win.w.hi[ow], out[o], idx[o]);
          });
    }
  });
}

// 2x2 windows at stride 2 without padding (LeNet's pools, two_by_two in pool_windows.h): output
// row oh reads input rows 2*oh and 2*oh + 1, the four taps compared in row-major order as
// max_chunk does (strict >: the first largest wins), contiguous loads instead of gathers. A
// row's cells run in chunks of compile-time width (fixed_widths.h): LeNet's rows are 12 and 4 cells.

// Runs cells(width, in, o, at) for every output row of the planes and each chunk of its OW
// cells (compile-time widths, fixed_widths.h; the same chunks in every row, so the chunk loop is
// outside the rows): in = the chunk's first input cell (input row 2*oh), o = its first output
// cell, at = `in`'s index within its plane (the workspace's numbering). The planes go in groups
// of about 8,192 input cells (32 KiB of f32, in L1) so that the chunks after the first find them
// in cache.
template <class F> void each_2x2_row(int threads, const PoolGeometry& g, F&& cells) {
  const std::int64_t group = std::max<std::int64_t>(1, 8192 / (g.h * g.w));
  parallel_for(threads, g.planes, plane_grain(g), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t first = b; first < e; first += group)
      in_fixed_widths(g.ow, [&](auto width, std::int64_t ow) {
        for (std::int64_t plane = first; plane < std::min(first + group, e); ++plane)
          for (std::int64_t oh = 0; oh < g.oh; ++oh) {
            const std::int64_t at = 2 * oh * g.w + 2 * ow;
            cells(width, plane * g.h * g.w + at, (plane * g.oh + oh) * g.ow + ow, static_cast<std::int32_t>(at));
          }
      });
  });
}

// L output cells of a row (L fixed: a vector loop at any preferred width), first input r0[0].
template <int L, class T>
void max_2x2_cells(const T* __restrict r0, const T* __restrict r1, T* __restrict out, std::int32_t* __restrict idx,
                   std::int32_t at0, std::int32_t below) {
#pragma GCC unroll 1  // whole, the loop would be unrolled and its selects left as branches
  for (int l = 0; l < L; ++l) {
    const std::int32_t at = at0 + 2 * l;
    T best = r0[2 * l];
    std::int32_t where = at;
    const T right = r0[2 * l + 1], down = r1[2 * l], diagonal = r1[2 * l + 1];
    where = right > best ? at + 1 : where;
    best = right > best ? right : best;
    where = down > best ? at + below : where;
    best = down > best ? down : best;
    where = diagonal > best ? at + below + 1 : where;
    best = diagonal > best ? diagonal : best;
    out[l] = best;
    idx[l] = where;
  }
}

// Whether a row of the 2x2 pool runs as one AVX-512 vector (max_pool_2x2_rows.h): f32, 9 to 16
// output cells. Rows of 8 or fewer are one chunk of the loops below already, and take them: as
// one vector, LeNet's pool2 (rows of 4) went from 32-36 to 47-50 us a step forward and 34-35 to
// 41-43 backward, where pool1 (rows of 12) went 110-121 -> 90-100 and 126-143 -> 110-117
// (Emerald Rapids Xeon, 2 threads, LeNet steps, two runs of four alternating pairs).
#if defined(__AVX512F__)
bool whole_rows(const PoolGeometry& g) { return g.ow > 8 && g.ow <= max_pool_2x2_rows::kMaxCells; }

// row(in, o, at, below, masks) for every output row of the planes, one vector each: in = its
// first input cell (input row 2*oh), o = its first output cell, at = `in`'s index within its
// plane, below = W.
template <class F> void each_vector_row(int threads, const PoolGeometry& g, F&& row) {
  const max_pool_2x2_rows::RowMasks masks(g.ow);
  const auto below = static_cast<std::int32_t>(g.w);
  parallel_for(threads, g.planes, plane_grain(g), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t plane = b; plane < e; ++plane)
      for (std::int64_t oh = 0; oh < g.oh; ++oh) {
        const std::int64_t at = 2 * oh * g.w;
        row(plane * g.h * g.w + at, (plane * g.oh + oh) * g.ow, static_cast<std::int32_t>(at), below, masks);
      }
  });
}
#endif

template <class T>
void max_forward_2x2(int threads, const PoolGeometry& g, const T* x, T* y, std::int32_t* arg) {
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float>)
    if (whole_rows(g))
      return each_vector_row(threads, g, [&](std::int64_t in, std::int64_t o, auto at, auto below, const auto& m) {
        max_pool_2x2_rows::forward(x + in, x + in + g.w, y + o, arg + o, at, below, m);
      });
#endif
  each_2x2_row(threads, g, [&](auto width, std::int64_t in, std::int64_t o, std::int32_t at) {
    max_2x2_cells<decltype(width)::value>(x + in, x + in + g.w, y + o, arg + o, at, static_cast<std::int32_t>(g.w));
  });
}

// Backward of 2x2 windows at stride 2 that tile the plane exactly (H = 2 OH, W = 2 OW): every
// input cell lies in one window, so each is written once (dy where it held the maximum, else
// 0) instead of a fill and a scatter. 0 + dy as the scatter adds it (a -0 dy gives +0).
bool tiles_exactly(const PoolGeometry& g, const Pool2dParams& p) {
  return two_by_two(g, p) && 2 * g.oh == g.h && 2 * g.ow == g.w;
}

// L output cells' gradients into their windows' rows r0 and r1 (L fixed, as max_2x2_cells).
template <int L, class T>
void max_2x2_cells_backward(const T* __restrict dout, const std::int32_t* __restrict idx, T* __restrict r0,
                            T* __restrict r1, std::int32_t at0, std::int32_t below) {
#pragma GCC unroll 1
  for (int l = 0; l < L; ++l) {
    const std::int32_t at = at0 + 2 * l;
    const T d = T(0) + dout[l];
    const std::int32_t i = idx[l];
    r0[2 * l] = i == at ? d : T(0);
    r0[2 * l + 1] = i == at + 1 ? d : T(0);
    r1[2 * l] = i == at + below ? d : T(0);
    r1[2 * l + 1] = i == at + below + 1 ? d : T(0);
  }
}

template <class T>
void max_backward_2x2(int threads, const PoolGeometry& g, const T* dy, const std::int32_t* arg, T* dx) {
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float>)
    if (whole_rows(g))
      return each_vector_row(threads, g, [&](std::int64_t in, std::int64_t o, auto at, auto below, const auto& m) {
        max_pool_2x2_rows::backward(dy + o, arg + o, dx + in, dx + in + g.w, at, below, m);
      });
#endif
  each_2x2_row(threads, g, [&](auto width, std::int64_t in, std::int64_t o, std::int32_t at) {
    max_2x2_cells_backward<decltype(width)::value>(dy + o, arg + o, dx + in, dx + in + g.w, at, static_cast<std::int32_t>(g.w));
  });
}

template <class T>
void max_backward(int threads, const PoolGeometry& g, const T* dy, const std::int32_t* arg, T* dx) {
  parallel_for(threads, g.planes, plane_grain(g), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t pl = b; pl < e; ++pl) {
      T* din = dx + pl * g.h * g.w;
      const T* dout = dy + pl * g.oh * g.ow;
      const std::int32_t* idx = arg + pl * g.oh * g.ow;
      std::fill(din, din + g.h * g.w, T(0));
      for (std::int64_t o = 0; o < g.oh * g.ow; ++o)
        if (idx[o] >= 0) din[idx[o]] += dout[o];
    }
  });
}

// Theano's MaxPoolGrad (PoolGradient::all): every cell of a window equal to the window's
// maximum y gets the window's whole dy.
template <class T>
void max_backward_all(int threads, const PoolGeometry& g, const Windows& win, const T* x, const T* y, const T* dy, T* dx) {
  parallel_for(threads, g.planes, plane_grain(g), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t pl = b; pl < e; ++pl) {
      const T* in = x + pl * g.h * g.w;
      T* din = dx + pl * g.h * g.w;
      const T *top = y + pl * g.oh * g.ow, *dout = dy + pl * g.oh * g.ow;
      std::fill(din, din + g.h * g.w, T(0));
      for (std::int64_t oh = 0; oh < g.oh; ++oh)
        for (std::int64_t ow = 0; ow < g.ow; ++ow) {
          const T m = top[oh * g.ow + ow], d = dout[oh * g.ow + ow];
          for (std::int64_t h = win.h.lo[oh]; h < win.h.hi[oh]; ++h)
            for (std::int64_t w = win.w.lo[ow]; w < win.w.hi[ow]; ++w)
              if (in[h * g.w + w] == m) din[h * g.w + w] += d;
        }
    }
  });
}

template <class T>
void avg_forward(int threads, const PoolGeometry& g, const Pool2dParams& p, const Windows& win, const T* x, T* y) {
  const auto taps = row_taps(g, p, win);
  const std::int64_t cells = g.oh * g.ow;
  const auto stride = static_cast<std::int32_t>(p.stride_w);
  parallel_for(threads, g.planes, plane_grain(g), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t plane = b; plane < e; ++plane) {
      const T* in = x + plane * g.h * g.w;
      T* out = y + plane * cells;
      each_output_row(
          g, p, win, taps,
          [&](auto width, std::int64_t oh, std::int64_t ow0, std::int32_t at, const std::vector<std::int32_t>& taps) {
            constexpr int L = decltype(width)::value;
            T* o = out + oh * g.ow + ow0;
            const T divisor = static_cast<T>(win.h.count[oh] * p.kernel_w);  // a full width counts kernel_w
            if (stride == 1) pool_cells::avg_cells<L, 1>(in, at, stride, taps, divisor, o);
            else if (stride == 2) pool_cells::avg_cells<L, 2>(in, at, stride, taps, divisor, o);
            else pool_cells::avg_cells<L, 0>(in, at, stride, taps, divisor, o);
          },
          [&](std::int64_t oh, std::int64_t ow) {
            T s = 0;
            for (std::int64_t h = win.h.lo[oh]; h < win.h.hi[oh]; ++h)
              for (std::int64_t w = win.w.lo[ow]; w < win.w.hi[ow]; ++w) s += in[h * g.w + w];
            const std::int64_t divisor = win.h.count[oh] * win.w.count[ow];
            out[oh * g.ow + ow] = divisor > 0 ? s / static_cast<T>(divisor) : T(0);
          });
    }
  });
}

// din[l * stride] += share[l] for l < count: one tap of a row's cells of full width, whose
// targets lie `stride` apart (S: the stride when known at compile time, else 0).
template <int S, class T>
void add_shares(T* __restrict din, const T* __restrict share, std::int64_t count, std::int64_t runtime_stride) {
  const std::int64_t stride = S > 0 ? S : runtime_stride;
  for (std::int64_t l = 0; l < count; ++l) din[l * stride] += share[l];
}

// Each output cell spreads dy / divisor over the real cells of its window. A row's cells of full
// width go tap by tap, a pass over the row per tap (as the forward's vector cells); the cells
// clipped in width one at a time.
template <class T>
void avg_backward(int threads, const PoolGeometry& g, const Pool2dParams& p, const Windows& win, const T* dy, T* dx) {
  const Span cols = full_span(win.w, p.kernel_w);
  parallel_for(threads, g.planes, plane_grain(g), [&](std::int64_t b, std::int64_t e) {
    std::vector<T> share(static_cast<std::size_t>(g.ow));
    for (std::int64_t pl = b; pl < e; ++pl) {
      T* din = dx + pl * g.h * g.w;
      const T* dout = dy + pl * g.oh * g.ow;
      std::fill(din, din + g.h * g.w, T(0));
      for (std::int64_t oh = 0; oh < g.oh; ++oh) {
        for (std::int64_t ow = 0; ow < g.ow; ++ow) {
          const std::int64_t divisor = win.h.count[oh] * win.w.count[ow];
          share[static_cast<std::size_t>(ow)] = divisor > 0 ? dout[oh * g.ow + ow] / static_cast<T>(divisor) : T(0);
        }
        auto clipped = [&](std::int64_t ow) {
          const T s = share[static_cast<std::size_t>(ow)];
          for (std::int64_t h = win.h.lo[oh]; h < win.h.hi[oh]; ++h)
            for (std::int64_t w = win.w.lo[ow]; w < win.w.hi[ow]; ++w) din[h * g.w + w] += s;
        };
        for (std::int64_t ow = 0; ow < std::min(cols.lo, cols.hi); ++ow) clipped(ow);
        // The row's cells of full width, tap by tap.
        for (std::int64_t h = win.h.lo[oh]; h < win.h.hi[oh] && cols.lo < cols.hi; ++h)
          for (std::int64_t j = 0; j < p.kernel_w; ++j) {
            T* to = din + h * g.w + win.w.lo[cols.lo] + j;
            const T* from = share.data() + cols.lo;
            if (p.stride_w == 1) add_shares<1>(to, from, cols.hi - cols.lo, 1);
            else if (p.stride_w == 2) add_shares<2>(to, from, cols.hi - cols.lo, 2);
            else add_shares<0>(to, from, cols.hi - cols.lo, p.stride_w);
          }
        for (std::int64_t ow = std::max(cols.lo, cols.hi); ow < g.ow; ++ow) clipped(ow);
      }
    }
  });
}

}  // namespace

void CpuBackend::pool2d_forward_impl(const Tensor& x, Tensor& y, Tensor& workspace, const Pool2dParams& p) {
  const PoolGeometry g = pool_geometry(x, p);
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (p.kind == PoolKind::avg) {
      avg_forward(loop_threads_, g, p, windows_of(g, p), x.data<T>(), y.data<T>());
      return;
    }
    // The argmax workspace is allocated on the first call and reused while the shape holds.
    if (workspace.empty() || workspace.dtype() != DType::i32 || workspace.shape() != y.shape())
      workspace = Tensor(y.shape(), DType::i32);
    if (two_by_two(g, p))
      max_forward_2x2(loop_threads_, g, x.data<T>(), y.data<T>(), workspace.data<std::int32_t>());
    else
      max_forward(loop_threads_, g, p, windows_of(g, p), x.data<T>(), y.data<T>(), workspace.data<std::int32_t>());
  });
}

void CpuBackend::pool2d_backward_impl(const Tensor& x, const Tensor& y, const Tensor& dy, const Tensor& workspace,
                                      Tensor& dx, const Pool2dParams& p) {
  const PoolGeometry g = pool_geometry(x, p);
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (p.kind == PoolKind::avg) {
      avg_backward(loop_threads_, g, p, windows_of(g, p), dy.data<T>(), dx.data<T>());
      return;
    }
    if (pool_gradient() == PoolGradient::all) {
      max_backward_all(loop_threads_, g, windows_of(g, p), x.data<T>(), y.data<T>(), dy.data<T>(), dx.data<T>());
      return;
    }
    OpCheck(*this, Op::pool2d_backward).argmax_workspace(workspace, dy.shape());
    if (tiles_exactly(g, p))
      max_backward_2x2(loop_threads_, g, dy.data<T>(), workspace.data<std::int32_t>(), dx.data<T>());
    else
      max_backward(loop_threads_, g, dy.data<T>(), workspace.data<std::int32_t>(), dx.data<T>());
  });
}

}  // namespace ablate::kernels::cpu
