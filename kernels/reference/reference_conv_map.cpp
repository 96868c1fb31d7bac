// Torch7's nn.SpatialConvolutionMap as plain loops: a convolution whose output planes each read
// only the input planes that a connection table names (LeNet-5's C3 layer; Torch's CIFAR-10
// demo, whose second layer maps 16 planes to 256 with 4 inputs each). Row t of the table
// i32 [T, 2] is (i_t, o_t): input plane i_t feeds output plane o_t through its own kernel w[t].
// Shapes: x [N,C,H,W], w [T,KH,KW], bias [K] or empty, y [N,K,OH,OW] with
// OH = (H + pad_top + pad_bottom - KH) / stride_h + 1 (likewise OW); padded pixels are zero.
//   forward:          y[n,o,oh,ow] = bias[o] + sum over t with o_t = o, a < KH, b < KW of
//                                    x[n, i_t, oh*sh - pt + a, ow*sw - pl + b] * w[t,a,b]
//   backward data:    dx[n,i,h,w]  = sum over t with i_t = i and the taps (oh, ow, a, b) that
//                                    read x[n,i,h,w] of dy[n, o_t, oh, ow] * w[t,a,b]
//   backward weights: dw[t,a,b]    = sum over n, oh, ow of x[n, i_t, oh*sh - pt + a, ...] * dy[n, o_t, oh, ow]
//                     dbias[o]     = sum over n, oh, ow of dy[n,o,oh,ow]
// Torch's C code (THNN SpatialConvolutionMap.c) computes the same sums connection by
// connection with its valid cross-correlation (forward, weights) and full convolution (data);
// it has no padding (Torch pads with nn.SpatialZeroPadding first, the same math). Each sum
// accumulates in a double buffer and is rounded to T once, as the dense reference does.
#include <vector>

#include "kernels/reference/reference_backend_impl.h"
#include "kernels/reference/reference_conv_geometry.h"
#include "kernels/reference/reference_loops.h"

namespace ablate::kernels::reference {
namespace {

// The geometry of image [N,C,H,W] (x or dx) and kernels [T,KH,KW] into K planes.
ConvGeometry map_geometry(const Tensor& x, const Tensor& w, std::int64_t K, const Conv2dParams& p) {
  return plane_geometry(x.shape(), K, w.dim(1), w.dim(2), p);
}

// Calls f(y_index, x_index, w_index) for every image, connection, output pixel and kernel tap
// whose input pixel lies inside the image; taps on padding multiply zero and are skipped.
template <class F> void for_each_map_tap(const ConvGeometry& g, const std::int32_t* table, std::int64_t T, F&& f) {
  for (std::int64_t n = 0; n < g.N; ++n)
    for (std::int64_t t = 0; t < T; ++t) {
      const std::int64_t in = table[2 * t], out = table[2 * t + 1];
      for (std::int64_t oh = 0; oh < g.OH; ++oh)
        for (std::int64_t ow = 0; ow < g.OW; ++ow) {
          const std::int64_t y_index = ((n * g.K + out) * g.OH + oh) * g.OW + ow;
          for (std::int64_t a = 0; a < g.KH; ++a) {
            const std::int64_t h = oh * g.p.stride_h - g.p.pad_top + a;
            if (h < 0 || h >= g.H) continue;
            for (std::int64_t b = 0; b < g.KW; ++b) {
              const std::int64_t w = ow * g.p.stride_w - g.p.pad_left + b;
              if (w < 0 || w >= g.W) continue;
              f(y_index, ((n * g.C + in) * g.H + h) * g.W + w, (t * g.KH + a) * g.KW + b);
            }
          }
        }
    }
}

std::size_t count(std::int64_t n) { return static_cast<std::size_t>(n); }

}  // namespace

void ReferenceBackend::conv2d_map_forward_impl(const Tensor& x, const Tensor& w, const Tensor& bias,
                                               const Tensor& table, Tensor& y, const Conv2dParams& p) {
  const ConvGeometry g = map_geometry(x, w, y.dim(1), p);
  const std::int64_t T = w.dim(0);
  const std::int32_t* tab = table.data<std::int32_t>();
  with_float_type(x.dtype(), [&](auto tag) {
    using Real = decltype(tag);
    const Real *xd = x.data<Real>(), *wd = w.data<Real>();
    std::vector<double> acc(count(y.numel()), 0.0);
    if (!bias.empty())
      for (std::size_t i = 0; i < acc.size(); ++i) acc[i] = bias.data<Real>()[(std::int64_t(i) / (g.OH * g.OW)) % g.K];
    for_each_map_tap(g, tab, T, [&](std::int64_t yi, std::int64_t xi, std::int64_t wi) { acc[yi] += double(xd[xi]) * wd[wi]; });
    round_into(acc, y.data<Real>());
  });
}

void ReferenceBackend::conv2d_map_backward_data_impl(const Tensor& dy, const Tensor& w, const Tensor& table,
                                                     Tensor& dx, const Conv2dParams& p) {
  const ConvGeometry g = map_geometry(dx, w, dy.dim(1), p);
  const std::int64_t T = w.dim(0);
  const std::int32_t* tab = table.data<std::int32_t>();
  with_float_type(dy.dtype(), [&](auto tag) {
    using Real = decltype(tag);
    const Real *dyd = dy.data<Real>(), *wd = w.data<Real>();
    std::vector<double> acc(count(dx.numel()), 0.0);
    for_each_map_tap(g, tab, T, [&](std::int64_t yi, std::int64_t xi, std::int64_t wi) { acc[xi] += double(dyd[yi]) * wd[wi]; });
    round_into(acc, dx.data<Real>());
  });
}

void ReferenceBackend::conv2d_map_backward_weights_impl(const Tensor& x, const Tensor& dy, const Tensor& table,
                                                        Tensor& dw, Tensor& dbias, const Conv2dParams& p) {
  const ConvGeometry g = map_geometry(x, dw, dy.dim(1), p);
  const std::int64_t T = dw.dim(0);
  const std::int32_t* tab = table.data<std::int32_t>();
  with_float_type(x.dtype(), [&](auto tag) {
    using Real = decltype(tag);
    const Real *xd = x.data<Real>(), *dyd = dy.data<Real>();
    std::vector<double> acc(count(dw.numel()), 0.0);
    for_each_map_tap(g, tab, T, [&](std::int64_t yi, std::int64_t xi, std::int64_t wi) { acc[wi] += double(xd[xi]) * dyd[yi]; });
    round_into(acc, dw.data<Real>());
    if (!dbias.empty()) channel_sums<Real>(dyd, g.N, g.K, g.OH * g.OW, dbias.data<Real>());
  });
}

}  // namespace ablate::kernels::reference
