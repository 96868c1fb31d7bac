// Local response normalisation across channels, Caffe's LRNLayer (ACROSS_CHANNELS) and
// TF's local_response_normalization with alpha_tf = alpha / size:
//   scale[c] = k + alpha / size * sum_{c' in W(c)} x[c']^2,  y[c] = x[c] * scale[c]^-beta,
// W(c) = channels [c - (size-1)/2, c - (size-1)/2 + size - 1] clipped to [0, C) (Caffe's pre_pad).
// Backward (Caffe's CrossChannelBackward):
//   dx[c] = dy[c] scale[c]^-beta - 2 alpha beta / size * x[c] * sum_{c': c in W(c')} dy[c'] y[c'] / scale[c'].
// The workspace holds scale (x's shape and dtype) from forward to backward. scale^-beta is
// lrn_math.h's (square roots for beta = 0.75).
#include <algorithm>
#include <cmath>
#include <utility>

#include "kernels/contract/op_check.h"
#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/dtype_dispatch.h"
#include "kernels/cpu/lrn_math.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/cpu/scratch.h"

namespace ablate::kernels::cpu {
namespace {

// out[s] = sum over channels [lo, hi) clipped to [0, C) of f(c, s), for one image of planes [C, S].
template <class T, class F>
void window_sum(std::int64_t channels, std::int64_t plane, std::int64_t lo, std::int64_t hi, T* out, F&& f) {
  std::fill(out, out + plane, T(0));
  for (std::int64_t c = std::max<std::int64_t>(lo, 0); c < std::min(hi, channels); ++c)
    for (std::int64_t s = 0; s < plane; ++s) out[s] += f(c, s);
}

}  // namespace

void CpuBackend::lrn_forward_impl(const Tensor& x, Tensor& y, Tensor& workspace, const LrnParams& p) {
  if (workspace.empty() || workspace.dtype() != x.dtype() || workspace.shape() != x.shape())
    workspace = Tensor(x.shape(), x.dtype());
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const std::int64_t n = x.dim(0), channels = x.dim(1), plane = x.dim(2) * x.dim(3), pre = (p.size - 1) / 2;
    const T a = static_cast<T>(p.alpha / p.size), k = static_cast<T>(p.k), beta = static_cast<T>(p.beta);
    const T* in = x.data<T>();
    T* out = y.data<T>();
    T* scale = workspace.data<T>();
    parallel_for(loop_threads_, n * channels, row_grain(plane * p.size),
                 [&](std::int64_t b, std::int64_t e) {
                   for (std::int64_t r = b; r < e; ++r) {
                     const std::int64_t img = r / channels, c = r % channels;
                     const T* xi = in + img * channels * plane;
                     T* sc = scale + r * plane;
                     window_sum(channels, plane, c - pre, c - pre + p.size, sc,
                                [&](std::int64_t cc, std::int64_t s) { return xi[cc * plane + s] * xi[cc * plane + s]; });
                     for (std::int64_t s = 0; s < plane; ++s) sc[s] = k + a * sc[s];
                     T* yr = out + r * plane;
                     pow_minus_beta(plane, sc, beta, yr);
                     for (std::int64_t s = 0; s < plane; ++s) yr[s] *= in[r * plane + s];
                   }
                 });
  });
}

void CpuBackend::lrn_backward_impl(const Tensor& x, const Tensor& y, const Tensor& dy, const Tensor& workspace,
                                   Tensor& dx, const LrnParams& p) {
  // The workspace is this backend's own: the scale that lrn_forward filled.
  OpCheck(*this, Op::lrn_backward).like_shape("workspace (the scale that lrn_forward filled)", workspace, x, x.shape());
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const std::int64_t n = x.dim(0), channels = x.dim(1), plane = x.dim(2) * x.dim(3), pre = (p.size - 1) / 2;
    const T coeff = static_cast<T>(2.0 * p.alpha * p.beta / p.size), beta = static_cast<T>(p.beta);
    const T *in = x.data<T>(), *out = y.data<T>(), *g = dy.data<T>(), *scale = workspace.data<T>();
    T* d = dx.data<T>();
    // Per image: ratio = dy * y / scale over all channels, then each channel's window of it.
    parallel_for(loop_threads_, n, 1, [&](std::int64_t b, std::int64_t e) {
      T* ratio = scratch_of<T>(ScratchSlot::columns, static_cast<std::size_t>(channels * plane));
      T* acc = scratch_of<T>(ScratchSlot::gemm_out, static_cast<std::size_t>(plane));
      for (std::int64_t img = b; img < e; ++img) {
        const std::int64_t base = img * channels * plane;
        for (std::int64_t i = 0; i < channels * plane; ++i) ratio[i] = g[base + i] * out[base + i] / scale[base + i];
        for (std::int64_t c = 0; c < channels; ++c) {
          // c is in W(c') for c' in [c + pre - size + 1, c + pre].
          window_sum(channels, plane, c + pre - p.size + 1, c + pre + 1, acc,
                     [&](std::int64_t cc, std::int64_t s) { return ratio[cc * plane + s]; });
          const std::int64_t at = base + c * plane;
          pow_minus_beta(plane, scale + at, beta, d + at);
          for (std::int64_t s = 0; s < plane; ++s) d[at + s] = g[at + s] * d[at + s] - coeff * in[at + s] * acc[s];
        }
      }
    });
  });
}

}  // namespace ablate::kernels::cpu
