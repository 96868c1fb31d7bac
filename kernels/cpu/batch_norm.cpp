// Batch normalisation per channel for the CPU backends (Caffe's BatchNorm + Scale layers,
// Torch's nn.SpatialBatchNormalization), the math of kernels/backend.h: x viewed as [N, C, S]
// (S = H*W, or 1 for [N,C]), M = N*S values per channel, s[c] = sqrt(var[c] + eps):
//   training   mean, biased var over the M values (two passes: the mean, then the squares)
//   forward    y = gamma[c] (x - mean[c]) / s[c] + beta[c]
//   backward   dbeta = sum dy, dgamma = sum dy x_hat, dx = gamma/s (dy - (dbeta + x_hat dgamma) / M)
// Threads split the channels; each channel's sums run in one fixed order in double, so the
// result is the same for any thread count. Elements are computed in double and rounded once.
#include <cmath>

#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/dtype_dispatch.h"
#include "kernels/cpu/parallel_for.h"

namespace ablate::kernels::cpu {
namespace {

// x viewed as [N, C, S]; channel c's values are the N runs x[(n*C + c)*S .. + S).
struct Channels {
  std::int64_t n, c, s;
  double m() const { return double(n * s); }
  std::int64_t run(std::int64_t image, std::int64_t channel) const { return (image * c + channel) * s; }
};
Channels channels_of(const Tensor& x) { return {x.dim(0), x.dim(1), x.numel() / (x.dim(0) * x.dim(1))}; }

// f(index) over the M elements of channel ch.
template <class F> void over_channel(const Channels& g, std::int64_t ch, F&& f) {
  for (std::int64_t image = 0; image < g.n; ++image) {
    const std::int64_t base = g.run(image, ch);
    for (std::int64_t i = 0; i < g.s; ++i) f(base + i);
  }
}

// f(ch) for every channel, channels split over the threads.
template <class F> void for_channels(int threads, const Channels& g, F&& f) {
  parallel_for(threads, g.c, row_grain(g.n * g.s), [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t ch = begin; ch < end; ++ch) f(ch);
  });
}

template <class T> double value_or(const Tensor& t, std::int64_t ch, double none) {
  return t.empty() ? none : double(t.data<T>()[ch]);
}

// y of channel ch = gamma (x - mean) / sqrt(var + eps) + beta.
template <class T>
void normalize_channel(const Channels& g, std::int64_t ch, const T* x, double gamma, double beta, double mean,
                       double var, double eps, T* y) {
  const double scale = gamma / std::sqrt(var + eps);
  over_channel(g, ch, [&](std::int64_t i) { y[i] = static_cast<T>((double(x[i]) - mean) * scale + beta); });
}

}  // namespace

void CpuBackend::batch_norm_forward_training_impl(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                                  double epsilon, Tensor& y, Tensor& mean, Tensor& var) {
  const Channels g = channels_of(x);
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* in = x.data<T>();
    for_channels(loop_threads_, g, [&](std::int64_t ch) {
      double sum = 0, squares = 0;
      over_channel(g, ch, [&](std::int64_t i) { sum += in[i]; });
      const double m = sum / g.m();
      over_channel(g, ch, [&](std::int64_t i) { squares += (in[i] - m) * (in[i] - m); });
      const double v = squares / g.m();
      normalize_channel(g, ch, in, value_or<T>(gamma, ch, 1.0), value_or<T>(beta, ch, 0.0), m, v, epsilon,
                        y.data<T>());  // after the statistics: y may alias x
      mean.data<T>()[ch] = static_cast<T>(m);
      var.data<T>()[ch] = static_cast<T>(v);
    });
  });
}

void CpuBackend::batch_norm_forward_inference_impl(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                                   const Tensor& mean, const Tensor& var, double epsilon, Tensor& y) {
  const Channels g = channels_of(x);
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for_channels(loop_threads_, g, [&](std::int64_t ch) {
      normalize_channel(g, ch, x.data<T>(), value_or<T>(gamma, ch, 1.0), value_or<T>(beta, ch, 0.0),
                        double(mean.data<T>()[ch]), double(var.data<T>()[ch]), epsilon, y.data<T>());
    });
  });
}

void CpuBackend::batch_norm_backward_impl(const Tensor& x, const Tensor& dy, const Tensor& gamma, const Tensor& mean,
                                          const Tensor& var, double epsilon, Tensor& dx, Tensor& dgamma,
                                          Tensor& dbeta) {
  const Channels g = channels_of(x);
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *in = x.data<T>(), *d_out = dy.data<T>();
    for_channels(loop_threads_, g, [&](std::int64_t ch) {
      const double m = mean.data<T>()[ch], inv_s = 1.0 / std::sqrt(double(var.data<T>()[ch]) + epsilon);
      double sum_dy = 0, sum_dy_xhat = 0;
      over_channel(g, ch, [&](std::int64_t i) {
        sum_dy += d_out[i];
        sum_dy_xhat += d_out[i] * (in[i] - m) * inv_s;
      });
      if (!dx.empty()) {  // after this channel's sums: dx may alias dy
        T* d_in = dx.data<T>();
        const double scale = value_or<T>(gamma, ch, 1.0) * inv_s;
        over_channel(g, ch, [&](std::int64_t i) {
          const double x_hat = (in[i] - m) * inv_s;
          d_in[i] = static_cast<T>(scale * (d_out[i] - (sum_dy + x_hat * sum_dy_xhat) / g.m()));
        });
      }
      if (!dgamma.empty()) dgamma.data<T>()[ch] = static_cast<T>(sum_dy_xhat);
      if (!dbeta.empty()) dbeta.data<T>()[ch] = static_cast<T>(sum_dy);
    });
  });
}

}  // namespace ablate::kernels::cpu
