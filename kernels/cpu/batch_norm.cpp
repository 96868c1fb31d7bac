// Batch normalisation per channel for the CPU backends (Caffe's BatchNorm + Scale layers,
// Torch's nn.SpatialBatchNormalization), the math of kernels/backend.h: x viewed as [N, C, S]
// (S = H*W, or 1 for [N,C]), M = N*S values per channel, s[c] = sqrt(var[c] + eps):
//   training   mean, biased var over the M values, in one pass of sums shifted by the
//              channel's first value k (var = E[(x-k)^2] - (E[x-k])^2, exact to rounding for
//              values near k; the reference's two passes differ by rounding only)
//   forward    y = gamma[c] (x - mean[c]) / s[c] + beta[c] = a x + b
//   backward   dbeta = sum dy, dgamma = sum dy x_hat, dx = gamma/s (dy - (dbeta + x_hat dgamma) / M)
//              = a dy + b x + c
// Threads split the channels; each channel's sums run in double, each image's run a SIMD
// reduction, in one fixed order, so the result is the same for any thread count. Elements are
// computed in double and rounded once.
#include <algorithm>
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

// The runs of one image: the loops below see plain pointers and a count, which vectorise.
// Sums of (x - k) and (x - k)^2 over x[0, n), added to s1, s2; one SIMD reduction in double.
template <class T> void shifted_sums(const T* x, std::int64_t n, double k, double& s1, double& s2) {
  double a = 0, b = 0;
#pragma omp simd reduction(+ : a, b)
  for (std::int64_t i = 0; i < n; ++i) {
    const double d = double(x[i]) - k;
    a += d;
    b += d * d;
  }
  s1 += a;
  s2 += b;
}

// Sums of dy and dy (x - m) over [0, n), added to s1, s2.
template <class T> void gradient_sums(const T* dy, const T* x, std::int64_t n, double m, double& s1, double& s2) {
  double a = 0, b = 0;
#pragma omp simd reduction(+ : a, b)
  for (std::int64_t i = 0; i < n; ++i) {
    const double d = dy[i];
    a += d;
    b += d * (double(x[i]) - m);
  }
  s1 += a;
  s2 += b;
}

// out = a u + b v + c over [0, n) (v may be null: b unused); out may alias u or v.
template <class T> void affine(const T* u, const T* v, std::int64_t n, double a, double b, double c, T* out) {
  if (v == nullptr) {
#pragma omp simd
    for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(a * double(u[i]) + c);
  } else {
#pragma omp simd
    for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(a * double(u[i]) + b * double(v[i]) + c);
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

// y of channel ch = gamma (x - mean) / sqrt(var + eps) + beta, as y = a x + b.
template <class T>
void normalize_channel(const Channels& g, std::int64_t ch, const T* x, double gamma, double beta, double mean,
                       double var, double eps, T* y) {
  const double a = gamma / std::sqrt(var + eps), b = beta - mean * a;
  for (std::int64_t image = 0; image < g.n; ++image)
    affine<T>(x + g.run(image, ch), nullptr, g.s, a, 0.0, b, y + g.run(image, ch));
}

}  // namespace

void CpuBackend::batch_norm_forward_training_impl(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                                  double epsilon, Tensor& y, Tensor& mean, Tensor& var) {
  const Channels g = channels_of(x);
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* in = x.data<T>();
    for_channels(loop_threads_, g, [&](std::int64_t ch) {
      const double k = in[g.run(0, ch)];
      double sum = 0, squares = 0;
      for (std::int64_t image = 0; image < g.n; ++image) shifted_sums(in + g.run(image, ch), g.s, k, sum, squares);
      const double shift = sum / g.m(), m = k + shift, v = std::max(0.0, squares / g.m() - shift * shift);
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
      double sum_dy = 0, sum_dy_xc = 0;
      for (std::int64_t image = 0; image < g.n; ++image)
        gradient_sums(d_out + g.run(image, ch), in + g.run(image, ch), g.s, m, sum_dy, sum_dy_xc);
      const double sum_dy_xhat = sum_dy_xc * inv_s;
      if (!dx.empty()) {  // after this channel's sums: dx may alias dy
        // dx = scale (dy - (sum_dy + (x - m) inv_s sum_dy_xhat) / M) = a dy + b x + c
        const double a = value_or<T>(gamma, ch, 1.0) * inv_s, b = -a * inv_s * sum_dy_xhat / g.m(),
                     c = -a * sum_dy / g.m() - b * m;
        for (std::int64_t image = 0; image < g.n; ++image)
          affine(d_out + g.run(image, ch), in + g.run(image, ch), g.s, a, b, c, dx.data<T>() + g.run(image, ch));
      }
      if (!dgamma.empty()) dgamma.data<T>()[ch] = static_cast<T>(sum_dy_xhat);
      if (!dbeta.empty()) dbeta.data<T>()[ch] = static_cast<T>(sum_dy);
    });
  });
}

}  // namespace ablate::kernels::cpu
