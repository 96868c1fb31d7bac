// Local response normalisation across channels (Caffe's LRNLayer ACROSS_CHANNELS, TF's
// local_response_normalization with size = 2 r + 1 and alpha = alpha_tf * size, oneDNN's
// lrn_across_channels). For x, y [N,C,H,W] and an odd window of `size` channels centred on c:
//   scale[c] = k + alpha / size * sum_{c' = c-r .. c+r, inside [0, C)} x[c']^2,  r = (size-1)/2
//   y[c]     = x[c] * scale[c]^-beta
//   dx[c]    = dy[c] * scale[c]^-beta
//              - 2 alpha beta / size * x[c] * sum_{c' = c-r .. c+r} dy[c'] y[c'] / scale[c']
// (the window is symmetric, so c' sees c exactly when c sees c'; Caffe's CrossChannelBackward).
// The workspace holds scale, [N,C,H,W] in x's dtype; backward recomputes it when the
// workspace is empty.
#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/contract/op_check.h"
#include "kernels/reference/reference_backend_impl.h"
#include "kernels/reference/reference_loops.h"

namespace ablate::kernels::reference {
namespace {

// Calls f(c, c2) for every channel c2 in the window of c, for the C channels of a pixel.
template <class F> void for_each_window_channel(std::int64_t C, int size, F&& f) {
  std::int64_t r = (size - 1) / 2;
  for (std::int64_t c = 0; c < C; ++c)
    for (std::int64_t c2 = std::max<std::int64_t>(c - r, 0); c2 <= std::min(c + r, C - 1); ++c2) f(c, c2);
}

// scale as defined above, in double, for the [N,C,HW] tensor x.
template <class T> std::vector<double> lrn_scale(const T* x, std::int64_t N, std::int64_t C, std::int64_t HW,
                                                const LrnParams& p) {
  std::vector<double> scale(static_cast<std::size_t>(N * C * HW), 0.0);
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t s = 0; s < HW; ++s) {
      auto at = [&](std::int64_t c) { return (n * C + c) * HW + s; };
      for_each_window_channel(C, p.size, [&](std::int64_t c, std::int64_t c2) {
        scale[at(c)] += double(x[at(c2)]) * x[at(c2)];
      });
      for (std::int64_t c = 0; c < C; ++c) scale[at(c)] = p.k + p.alpha / p.size * scale[at(c)];
    }
  return scale;
}

template <class T> void lrn_backward_loops(const T* x, const T* y, const T* dy, const std::vector<double>& scale,
                                           std::int64_t N, std::int64_t C, std::int64_t HW, const LrnParams& p, T* dx) {
  std::vector<double> ratio(static_cast<std::size_t>(C));       // dy y / scale of one pixel's channels
  std::vector<double> window_sum(static_cast<std::size_t>(C));  // its sum over each channel's window
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t s = 0; s < HW; ++s) {
      auto at = [&](std::int64_t c) { return (n * C + c) * HW + s; };
      for (std::int64_t c = 0; c < C; ++c) ratio[c] = double(dy[at(c)]) * y[at(c)] / scale[at(c)];
      std::fill(window_sum.begin(), window_sum.end(), 0.0);
      for_each_window_channel(C, p.size, [&](std::int64_t c, std::int64_t c2) { window_sum[c] += ratio[c2]; });
      for (std::int64_t c = 0; c < C; ++c)
        dx[at(c)] = static_cast<T>(double(dy[at(c)]) * std::pow(scale[at(c)], -p.beta) -
                                   2.0 * p.alpha * p.beta / p.size * x[at(c)] * window_sum[c]);
    }
}

}  // namespace

void ReferenceBackend::lrn_forward_impl(const Tensor& x, Tensor& y, Tensor& workspace, const LrnParams& p) {
  std::int64_t N = x.dim(0), C = x.dim(1), HW = x.dim(2) * x.dim(3);
  if (workspace.shape() != x.shape() || workspace.dtype() != x.dtype()) workspace = Tensor(x.shape(), x.dtype());
  with_float_type(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* in = x.data<T>();
    T* out = y.data<T>();
    T* saved = workspace.data<T>();
    std::vector<double> scale = lrn_scale(in, N, C, HW, p);
    for (std::size_t i = 0; i < scale.size(); ++i) {
      out[i] = static_cast<T>(in[i] * std::pow(scale[i], -p.beta));
      saved[i] = static_cast<T>(scale[i]);
    }
  });
}

void ReferenceBackend::lrn_backward_impl(const Tensor& x, const Tensor& y, const Tensor& dy, const Tensor& workspace,
                                         Tensor& dx, const LrnParams& p) {
  // The workspace is this backend's own: the scale that lrn_forward saved, or empty.
  if (!workspace.empty()) OpCheck(*this, Op::lrn_backward).like_shape("workspace", workspace, x, x.shape());
  std::int64_t N = x.dim(0), C = x.dim(1), HW = x.dim(2) * x.dim(3);
  with_float_type(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::vector<double> scale;
    if (workspace.empty()) {
      scale = lrn_scale(x.data<T>(), N, C, HW, p);
    } else {
      const T* saved = workspace.data<T>();
      scale.assign(saved, saved + workspace.numel());
    }
    lrn_backward_loops(x.data<T>(), y.data<T>(), dy.data<T>(), scale, N, C, HW, p, dx.data<T>());
  });
}

}  // namespace ablate::kernels::reference
