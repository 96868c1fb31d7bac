// Batch normalisation per channel for the CPU backends (Caffe's BatchNorm + Scale layers,
// Torch's nn.SpatialBatchNormalization), the math of kernels/backend.h: x viewed as [N, C, S]
// (S = H*W, or 1 for [N,C]), M = N*S values per channel, s[c] = sqrt(var[c] + eps):
//   training   mean, biased var over the M values (two passes: the mean, then the squares)
//   forward    y = gamma[c] (x - mean[c]) / s[c] + beta[c]
//   backward   dbeta = sum dy, dgamma = sum dy x_hat, dx = gamma/s (dy - (dbeta + x_hat dgamma) / M)
// Threads split the channels; each channel's sums run in double in one fixed order (f32: each
// image's run a SIMD reduction; f64: sequential), so the result is the same for any thread
// count. Elements are computed in double and rounded once.
#include <cmath>
#include <type_traits>

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

// The loops over one image's run of a channel [0, n): plain pointers and a count, so that each
// is one SIMD loop (`omp simd`; a lambda per index adding into captured sums ran scalar).
// Elementwise loops give the same bits either way. The sums are where order shows: in f32
// they run in the vector lanes (each lane in double); in f64 sequentially, element by element,
// which follows PyTorch's CPU batch norm closest: through ONNX in f64, PyTorch's ResNet-20 loss
// curve and ablate's differ by 2.5e-10..8.6e-9 at step 100 over five seeds with sequential
// sums, by 3.8e-9..4.5e-3 with lane sums (tests/peers/test_onnx_curve.py; a ReLU input that
// rounding puts on the other side of zero parts two curves, more often the more they differ;
// seed 1 has one at step 78, which ablate's own eigen and openblas backends already straddle).
// Either way a run is never split, so the result is the same for any thread count.
template <class T> constexpr bool kLaneSums = std::is_same_v<T, float>;

// sum of x[0, n), added to sum
template <class T> void run_sum(const T* x, std::int64_t n, double& sum) {
  if constexpr (kLaneSums<T>) {
    double a = 0;
#pragma omp simd reduction(+ : a)
    for (std::int64_t i = 0; i < n; ++i) a += double(x[i]);
    sum += a;
  } else {
    for (std::int64_t i = 0; i < n; ++i) sum += x[i];
  }
}

// sum of (x - m)^2 over [0, n), added to sum: the second pass, after the mean
template <class T> void run_squares(const T* x, std::int64_t n, double m, double& sum) {
  if constexpr (kLaneSums<T>) {
    double a = 0;
#pragma omp simd reduction(+ : a)
    for (std::int64_t i = 0; i < n; ++i) a += (double(x[i]) - m) * (double(x[i]) - m);
    sum += a;
  } else {
    for (std::int64_t i = 0; i < n; ++i) sum += (x[i] - m) * (x[i] - m);
  }
}

// sum dy and sum dy x_hat over [0, n), x_hat = (x - m) inv_s, added to sum_dy, sum_dy_xhat
template <class T>
void run_gradient_sums(const T* dy, const T* x, std::int64_t n, double m, double inv_s, double& sum_dy,
                       double& sum_dy_xhat) {
  if constexpr (kLaneSums<T>) {
    double a = 0, b = 0;
#pragma omp simd reduction(+ : a, b)
    for (std::int64_t i = 0; i < n; ++i) {
      a += double(dy[i]);
      b += double(dy[i]) * (double(x[i]) - m) * inv_s;
    }
    sum_dy += a;
    sum_dy_xhat += b;
  } else {
    for (std::int64_t i = 0; i < n; ++i) {
      sum_dy += dy[i];
      sum_dy_xhat += dy[i] * (x[i] - m) * inv_s;
    }
  }
}

// y = (x - m) scale + beta over [0, n); y may alias x
template <class T> void run_normalize(const T* x, std::int64_t n, double m, double scale, double beta, T* y) {
#pragma omp simd
  for (std::int64_t i = 0; i < n; ++i) y[i] = static_cast<T>((double(x[i]) - m) * scale + beta);
}

// dx = scale (dy - (sum_dy + x_hat sum_dy_xhat) / M) over [0, n); dx may alias dy. In f32 the two
// quotients are taken once (a division per element was a fifth of the backward's time); in f64
// per element, as the sequential sums above and for the same reason (through ONNX, dividing
// once moved seed 1's ResNet-20 curve across its ReLU flip at step 78: 4.4e-3 from PyTorch).
template <class T>
void run_input_gradient(const T* dy, const T* x, std::int64_t n, double m, double inv_s, double scale, double sum_dy,
                        double sum_dy_xhat, double count, T* dx) {
  if constexpr (kLaneSums<T>) {
    const double mean_dy = sum_dy / count, mean_dy_xhat = sum_dy_xhat / count;
#pragma omp simd
    for (std::int64_t i = 0; i < n; ++i) {
      const double x_hat = (double(x[i]) - m) * inv_s;
      dx[i] = static_cast<T>(scale * (double(dy[i]) - mean_dy - x_hat * mean_dy_xhat));
    }
  } else {
    for (std::int64_t i = 0; i < n; ++i) {
      const double x_hat = (x[i] - m) * inv_s;
      dx[i] = static_cast<T>(scale * (dy[i] - (sum_dy + x_hat * sum_dy_xhat) / count));
    }
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
  for (std::int64_t image = 0; image < g.n; ++image)
    run_normalize(x + g.run(image, ch), g.s, mean, scale, beta, y + g.run(image, ch));
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
      for (std::int64_t image = 0; image < g.n; ++image) run_sum(in + g.run(image, ch), g.s, sum);
      const double m = sum / g.m();
      for (std::int64_t image = 0; image < g.n; ++image) run_squares(in + g.run(image, ch), g.s, m, squares);
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
      for (std::int64_t image = 0; image < g.n; ++image)
        run_gradient_sums(d_out + g.run(image, ch), in + g.run(image, ch), g.s, m, inv_s, sum_dy, sum_dy_xhat);
      if (!dx.empty()) {  // after this channel's sums: dx may alias dy
        const double scale = value_or<T>(gamma, ch, 1.0) * inv_s;
        for (std::int64_t image = 0; image < g.n; ++image)
          run_input_gradient(d_out + g.run(image, ch), in + g.run(image, ch), g.s, m, inv_s, scale, sum_dy,
                             sum_dy_xhat, g.m(), dx.data<T>() + g.run(image, ch));
      }
      if (!dgamma.empty()) dgamma.data<T>()[ch] = static_cast<T>(sum_dy_xhat);
      if (!dbeta.empty()) dbeta.data<T>()[ch] = static_cast<T>(sum_dy);
    });
  });
}

}  // namespace ablate::kernels::cpu
