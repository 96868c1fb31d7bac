// Torch7's nn.SpatialConvolutionMap on the CPU backends (eigen, openblas, onednn share it): a
// convolution whose output plane o reads only the input planes that the connection table
// pairs with it, one KH x KW kernel per connection. No library has this op, so, as Torch's own
// C code (THNN SpatialConvolutionMap.c), it is a direct 2-D cross-correlation per connection,
// parallelised as Torch's OpenMP loops are:
//   forward          over (image, output plane): y[n,o] = bias[o] + sum over t with o_t = o of corr(x[n,i_t], w[t])
//   backward data    over (image, input plane):  dx[n,i] = sum over t with i_t = i of corr^T(dy[n,o_t], w[t])
//   backward weights over connections:           dw[t] = sum over n of corr(x[n,i_t], dy[n,o_t])
// Each output element is written by one thread, its terms added in table order (no atomics),
// so results are bit-identical for any thread count. Shapes and the math are those of
// kernels/reference/reference_conv_map.cpp: table i32 [T, 2] of (i_t, o_t), w [T,KH,KW],
// x [N,C,H,W], y [N,K,OH,OW]. Forward and data gradients accumulate in T (as the GEMM of a
// dense convolution does); weight gradients, sums over N*OH*OW terms, in double (per output
// column over the images in T at stride 1). The plane
// loops (a vectorized "flat" layout at stride 1, rows otherwise) are in conv_map_planes.h.
#include <algorithm>
#include <string>
#include <vector>

#include "kernels/cpu/accumulate.h"
#include "kernels/cpu/bias_loops.h"
#include "kernels/cpu/conv_geometry.h"
#include "kernels/cpu/conv_map_planes.h"
#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/dtype_dispatch.h"
#include "kernels/cpu/parallel_for.h"

namespace ablate::kernels::cpu {
namespace {

using namespace conv_map;

// A checked conv2d_map call: its geometry (k = output planes) and its T connections.
struct MapCall {
  ConvGeometry g;
  std::int64_t connections = 0;
  const std::int32_t* table = nullptr;  // [T, 2]: (input plane, output plane)
  std::int64_t taps() const { return g.kh * g.kw; }
  std::int64_t in_plane() const { return g.h * g.w; }
  std::int64_t out_plane() const { return g.oh * g.ow; }
};

// image [N,C,H,W] (x or dx), kernels [T,KH,KW] (w or dw), out [N,K,OH,OW] (y or dy) and the
// table i32 [T, 2], all checked by the contract (kernels/contract/conv_map_ops.cpp).
MapCall map_call(const Tensor& image, const Tensor& kernels, const Tensor& out, const Tensor& table,
                 const Conv2dParams& p) {
  MapCall c;
  c.g = plane_geometry(image, out.dim(1), kernels.dim(1), kernels.dim(2), p);
  c.connections = kernels.dim(0);
  c.table = table.data<std::int32_t>();
  return c;
}

// The connections grouped by their plane in one table column (0: input, 1: output): those of
// plane q are order[begin[q] .. begin[q + 1]), in table order (the fixed order of every sum).
struct Grouping {
  std::vector<std::int64_t> begin, order;
};
Grouping group_connections(const MapCall& c, int column, std::int64_t planes) {
  Grouping gr;
  gr.begin.assign(static_cast<std::size_t>(planes + 1), 0);
  for (std::int64_t t = 0; t < c.connections; ++t) ++gr.begin[static_cast<std::size_t>(c.table[2 * t + column] + 1)];
  for (std::int64_t q = 0; q < planes; ++q) gr.begin[q + 1] += gr.begin[q];
  gr.order.resize(static_cast<std::size_t>(c.connections));
  std::vector<std::int64_t> next(gr.begin.begin(), gr.begin.end() - 1);
  for (std::int64_t t = 0; t < c.connections; ++t) gr.order[next[c.table[2 * t + column]]++] = t;
  return gr;
}

// Items (planes or connections) per parallel chunk when each costs about `work` multiply-adds.
std::int64_t item_grain(std::int64_t work) { return std::max<std::int64_t>(1, kElementwiseGrain / std::max<std::int64_t>(work, 1)); }

}  // namespace

void CpuBackend::conv2d_map_forward_impl(const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& table,
                                         Tensor& y, const Conv2dParams& p) {
  const MapCall c = map_call(x, w, y, table, p);
  const ConvGeometry& g = c.g;
  if (!bias.empty()) {
  }
  const Grouping by_output = group_connections(c, 1, g.k);
  const std::int64_t work = g.k ? c.connections * c.taps() * c.out_plane() / g.k : 0;
  const bool flat = flat_applies(g);
  const Flat f = flat_layout(g);
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *xd = x.data<T>(), *wd = w.data<T>(), *b = bias.empty() ? nullptr : bias.data<T>();
    T* yd = y.data<T>();
    parallel_for(loop_threads_, g.n * g.k, item_grain(work), [&](std::int64_t begin, std::int64_t end) {
      std::vector<T> wide(flat ? static_cast<std::size_t>(f.len) : 0), pad(flat && f.padded ? static_cast<std::size_t>(f.hp * f.wp) : 0);
      for (std::int64_t item = begin; item < end; ++item) {
        const std::int64_t n = item / g.k, o = item % g.k;
        const T b_o = b ? b[o] : T(0);
        T* out = yd + item * c.out_plane();
        T* acc = flat ? wide.data() : out;
        std::fill(acc, acc + (flat ? f.len : c.out_plane()), flat ? T(0) : b_o);
        for (std::int64_t j = by_output.begin[o]; j < by_output.begin[o + 1]; ++j) {
          const std::int64_t t = by_output.order[j];
          const T* in = xd + (n * g.c + c.table[2 * t]) * c.in_plane();
          if (flat) flat_correlate_add(g, f.wp, f.len, padded_plane(g, f, in, pad.data()), wd + t * c.taps(), acc);
          else rows_correlate_add(g, in, wd + t * c.taps(), out);
        }
        if (flat)
          for (std::int64_t oh = 0; oh < g.oh; ++oh)
            for (std::int64_t ow = 0; ow < g.ow; ++ow) out[oh * g.ow + ow] = acc[oh * f.wp + ow] + b_o;
      }
    });
  });
}

void CpuBackend::conv2d_map_backward_data_impl(const Tensor& dy, const Tensor& w, const Tensor& table, Tensor& dx,
                                               const Conv2dParams& p) {
  const MapCall c = map_call(dx, w, dy, table, p);
  const ConvGeometry& g = c.g;
  const Grouping by_input = group_connections(c, 0, g.c);
  const std::int64_t work = g.c ? c.connections * c.taps() * c.out_plane() / g.c : 0;
  const bool flat = flat_applies(g);
  const Full f = full_layout(g);
  dispatch_float(dx.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *dyd = dy.data<T>(), *wd = w.data<T>();
    T* dxd = dx.data<T>();
    parallel_for(loop_threads_, g.n * g.c, item_grain(work), [&](std::int64_t begin, std::int64_t end) {
      // flat: the wide dx, one dy placed for the full correlation, one rotated kernel
      std::vector<T> wide(flat ? static_cast<std::size_t>(f.len) : 0), placed(flat ? static_cast<std::size_t>(f.rows * f.cols) : 0),
          rotated(flat ? static_cast<std::size_t>(c.taps()) : 0);
      for (std::int64_t item = begin; item < end; ++item) {
        const std::int64_t n = item / g.c, i = item % g.c;
        T* out = dxd + item * c.in_plane();
        T* acc = flat ? wide.data() : out;
        std::fill(acc, acc + (flat ? f.len : c.in_plane()), T(0));
        for (std::int64_t j = by_input.begin[i]; j < by_input.begin[i + 1]; ++j) {
          const std::int64_t t = by_input.order[j];
          const T* d = dyd + (n * g.k + c.table[2 * t + 1]) * c.out_plane();
          if (flat) {
            full_plane(g, f, d, placed.data());
            rotated_kernel(g, wd + t * c.taps(), rotated.data());
            flat_correlate_add(g, f.cols, f.len, placed.data(), rotated.data(), acc);
          } else {
            rows_correlate_transpose_add(g, d, wd + t * c.taps(), out);
          }
        }
        if (flat)
          for (std::int64_t h = 0; h < g.h; ++h) std::copy_n(acc + h * f.cols, g.w, out + h * g.w);
      }
    });
  });
}

void CpuBackend::conv2d_map_backward_weights_impl(const Tensor& x, const Tensor& dy, const Tensor& table, Tensor& dw,
                                                  Tensor& dbias, const Conv2dParams& p) {
  const MapCall c = map_call(x, dw, dy, table, p);
  const ConvGeometry& g = c.g;
  if (!dbias.empty()) {
  }
  const bool flat = flat_applies(g);
  const Flat f = flat_layout(g);
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *xd = x.data<T>(), *dyd = dy.data<T>();
    T* dwd = dw.data<T>();
    // Per tap, its terms by output column, added up in double at the end: flat, in T over the
    // wide plane (len columns); rows, in double over the OW output columns.
    const std::int64_t columns = flat ? f.len : g.ow;
    parallel_for(loop_threads_, c.connections, item_grain(g.n * c.taps() * c.out_plane()), [&](std::int64_t begin, std::int64_t end) {
      std::vector<T> flat_cols(flat ? static_cast<std::size_t>(c.taps() * columns) : 0);
      std::vector<double> row_cols(flat ? 0 : static_cast<std::size_t>(c.taps() * columns));
      std::vector<T> pad(flat && f.padded ? static_cast<std::size_t>(f.hp * f.wp) : 0),
          wide(flat && f.gaps ? static_cast<std::size_t>(f.len) : 0);
      for (std::int64_t t = begin; t < end; ++t) {
        std::fill(flat_cols.begin(), flat_cols.end(), T(0));
        std::fill(row_cols.begin(), row_cols.end(), 0.0);
        const std::int64_t in = c.table[2 * t], out = c.table[2 * t + 1];
        for (std::int64_t n = 0; n < g.n; ++n) {
          const T* xp = xd + (n * g.c + in) * c.in_plane();
          const T* d = dyd + (n * g.k + out) * c.out_plane();
          if (flat) flat_correlate_grad_add(g, f, padded_plane(g, f, xp, pad.data()), wide_plane(g, f, d, wide.data()), flat_cols.data());
          else rows_correlate_grad_add(g, xp, d, row_cols.data());
        }
        for (std::int64_t tap = 0; tap < c.taps(); ++tap)
          dwd[t * c.taps() + tap] = static_cast<T>(flat ? sum_run(flat_cols.data() + tap * columns, columns)
                                                        : sum_run(row_cols.data() + tap * columns, columns));
      }
    });
    if (!dbias.empty()) channel_bias_grad(loop_threads_, dyd, g.n, g.k, c.out_plane(), dbias.data<T>());
  });
}

}  // namespace ablate::kernels::cpu
