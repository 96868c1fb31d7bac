// Direct 2-D convolution (cross-correlation, as in every framework here) and the per-channel
// bias, as one loop over (output pixel, kernel tap) pairs that all three passes share.
// Shapes: x [N,C,H,W], w [K,C,KH,KW], y [N,K,OH,OW], OH = (H + pad_top + pad_bottom - KH) /
// stride_h + 1 (likewise OW); input pixels outside the image are zero padding.
//   forward:          y[n,k,oh,ow] = f(bias[k] + sum_{c,i,j} x[n,c,oh*sh-pt+i, ow*sw-pl+j] w[k,c,i,j]),
//                     f the epilogue p.activation (identity when none), applied to the rounded sum
//   backward data:    dx[n,c,h,w]  = sum over the taps that read x[n,c,h,w] of dy[n,k,oh,ow] w[k,c,i,j]
//   backward weights: dw[k,c,i,j]  = sum over n, oh, ow of x[n,c,oh*sh-pt+i, ow*sw-pl+j] dy[n,k,oh,ow]
// Each sum accumulates in a double buffer and is rounded to T once at the end.
#include <vector>

#include "kernels/reference/reference_backend_impl.h"
#include "kernels/reference/reference_conv_geometry.h"
#include "kernels/reference/reference_loops.h"

namespace ablate::kernels::reference {
namespace {

// Calls f(y_index, x_index, w_index) for every output pixel and kernel tap whose input pixel
// lies inside the image; taps that fall on padding multiply zero and are skipped.
template <class F> void for_each_conv_tap(const ConvGeometry& g, F&& f) {
  for (std::int64_t n = 0; n < g.N; ++n)
    for (std::int64_t k = 0; k < g.K; ++k)
      for (std::int64_t oh = 0; oh < g.OH; ++oh)
        for (std::int64_t ow = 0; ow < g.OW; ++ow) {
          std::int64_t y_index = ((n * g.K + k) * g.OH + oh) * g.OW + ow;
          for (std::int64_t c = 0; c < g.C; ++c)
            for (std::int64_t i = 0; i < g.KH; ++i) {
              std::int64_t h = oh * g.p.stride_h - g.p.pad_top + i;
              if (h < 0 || h >= g.H) continue;
              for (std::int64_t j = 0; j < g.KW; ++j) {
                std::int64_t w = ow * g.p.stride_w - g.p.pad_left + j;
                if (w < 0 || w >= g.W) continue;
                f(y_index, ((n * g.C + c) * g.H + h) * g.W + w, ((k * g.C + c) * g.KH + i) * g.KW + j);
              }
            }
        }
}

template <class T>
void conv_forward(const ConvGeometry& g, const T* x, const T* w, const T* bias, T* y) {
  std::vector<double> acc(static_cast<std::size_t>(g.N * g.K * g.OH * g.OW), 0.0);
  if (bias) {
    std::int64_t plane = g.OH * g.OW;
    for (std::size_t i = 0; i < acc.size(); ++i) acc[i] = bias[(static_cast<std::int64_t>(i) / plane) % g.K];
  }
  for_each_conv_tap(g, [&](std::int64_t yi, std::int64_t xi, std::int64_t wi) { acc[yi] += double(x[xi]) * w[wi]; });
  round_into(acc, y);
}

template <class T> void conv_backward_data(const ConvGeometry& g, const T* dy, const T* w, T* dx) {
  std::vector<double> acc(static_cast<std::size_t>(g.N * g.C * g.H * g.W), 0.0);
  for_each_conv_tap(g, [&](std::int64_t yi, std::int64_t xi, std::int64_t wi) { acc[xi] += double(dy[yi]) * w[wi]; });
  round_into(acc, dx);
}

template <class T> void conv_backward_weights(const ConvGeometry& g, const T* x, const T* dy, T* dw) {
  std::vector<double> acc(static_cast<std::size_t>(g.K * g.C * g.KH * g.KW), 0.0);
  for_each_conv_tap(g, [&](std::int64_t yi, std::int64_t xi, std::int64_t wi) { acc[wi] += double(x[xi]) * dy[yi]; });
  round_into(acc, dw);
}

// Elements per (n, c) of a tensor [N, C, ...]: 1 for [N,C], H*W for [N,C,H,W].
std::int64_t inner_size(const Tensor& t) {
  std::int64_t inner = 1;
  for (int d = 2; d < t.ndim(); ++d) inner *= t.dim(d);
  return inner;
}

}  // namespace

void ReferenceBackend::conv2d_forward_impl(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y,
                                           const Conv2dParams& p) {
  ConvGeometry g = conv_geometry(x.shape(), w.shape(), p);
  with_float_type(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    conv_forward<T>(g, x.data<T>(), w.data<T>(), bias.empty() ? nullptr : bias.data<T>(), y.data<T>());
  });
  if (p.activation) activation_forward_impl(*p.activation, y, y);  // the epilogue: a plain loop after
}

void ReferenceBackend::conv2d_backward_data_impl(const Tensor& dy, const Tensor& w, Tensor& dx, const Conv2dParams& p) {
  ConvGeometry g = conv_geometry(dx.shape(), w.shape(), p);
  with_float_type(dy.dtype(), [&](auto tag) {
    using T = decltype(tag);
    conv_backward_data<T>(g, dy.data<T>(), w.data<T>(), dx.data<T>());
  });
}

void ReferenceBackend::conv2d_backward_weights_impl(const Tensor& x, const Tensor& dy, Tensor& dw, Tensor& dbias,
                                                    const Conv2dParams& p) {
  ConvGeometry g = conv_geometry(x.shape(), dw.shape(), p);
  with_float_type(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    conv_backward_weights<T>(g, x.data<T>(), dy.data<T>(), dw.data<T>());
    if (!dbias.empty()) channel_sums<T>(dy.data<T>(), g.N, g.K, g.OH * g.OW, dbias.data<T>());
  });
}

// y [N,C,...] += bias[c]; the trailing dimensions (none, or H, W) are one inner block.
void ReferenceBackend::bias_add_impl(Tensor& y, const Tensor& bias) {
  std::int64_t N = y.dim(0), C = y.dim(1);
  with_float_type(y.dtype(), [&](auto tag) {
    using T = decltype(tag);
    add_channel_bias<T>(y.data<T>(), N, C, inner_size(y), bias.data<T>());
  });
}

void ReferenceBackend::bias_backward_impl(const Tensor& dy, Tensor& dbias) {
  std::int64_t N = dy.dim(0), C = dy.dim(1);
  with_float_type(dy.dtype(), [&](auto tag) {
    using T = decltype(tag);
    channel_sums<T>(dy.data<T>(), N, C, inner_size(dy), dbias.data<T>());
  });
}

}  // namespace ablate::kernels::reference
