// Batch normalisation per channel (Caffe's BatchNorm + Scale layers, Torch's
// nn.SpatialBatchNormalization / nn.BatchNormalization, TF's fused batch norm), as plain loops
// over x viewed as [N, C, S] (S = H*W, or 1 for [N,C]); M = N*S values per channel:
//   training:  mean[c] = (1/M) sum_{n,s} x[n,c,s],  var[c] = (1/M) sum_{n,s} (x[n,c,s] - mean[c])^2
//   forward:   x_hat = (x - mean[c]) / sqrt(var[c] + eps),  y = gamma[c] x_hat + beta[c]
//   backward:  dbeta[c] = sum dy,  dgamma[c] = sum dy x_hat,
//              dx = gamma[c] / sqrt(var[c] + eps) (dy - (dbeta[c] + x_hat dgamma[c]) / M)
// The backward is that of the training forward: mean and var are functions of x, whence the
// two correction terms (Ioffe & Szegedy 2015, Algorithm 1's gradients). Sums accumulate in
// double; each output element is computed in double and rounded once.
#include <cmath>
#include <vector>

#include "kernels/reference/reference_backend_impl.h"
#include "kernels/reference/reference_loops.h"

namespace ablate::kernels::reference {
namespace {

// x viewed as [N, C, S].
struct Channels {
  std::int64_t N, C, S;
  std::int64_t at(std::int64_t n, std::int64_t c, std::int64_t s) const { return (n * C + c) * S + s; }
  double M() const { return double(N * S); }
};
Channels channels_of(const Tensor& x) { return {x.dim(0), x.dim(1), x.numel() / (x.dim(0) * x.dim(1))}; }

// Calls f(index, c) for every element of x [N, C, S].
template <class F> void for_each_element(const Channels& g, F&& f) {
  for (std::int64_t n = 0; n < g.N; ++n)
    for (std::int64_t c = 0; c < g.C; ++c)
      for (std::int64_t s = 0; s < g.S; ++s) f(g.at(n, c, s), c);
}

// The value of per-channel tensor t at c in double, or `none` when t is empty.
template <class T> double channel_value(const Tensor& t, std::int64_t c, double none) {
  return t.empty() ? none : double(t.data<T>()[c]);
}

// y = gamma (x - mean) / sqrt(var + eps) + beta with the statistics given in double.
template <class T>
void normalize(const Channels& g, const Tensor& x, const Tensor& gamma, const Tensor& beta,
               const std::vector<double>& mean, const std::vector<double>& var, double eps, Tensor& y) {
  const T* in = x.data<T>();
  T* out = y.data<T>();
  for_each_element(g, [&](std::int64_t i, std::int64_t c) {
    const double x_hat = (double(in[i]) - mean[c]) / std::sqrt(var[c] + eps);
    out[i] = static_cast<T>(channel_value<T>(gamma, c, 1.0) * x_hat + channel_value<T>(beta, c, 0.0));
  });
}

template <class T> std::vector<double> as_doubles(const Tensor& t) {
  return std::vector<double>(t.data<T>(), t.data<T>() + t.numel());
}

}  // namespace

void ReferenceBackend::batch_norm_forward_training_impl(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                                        double epsilon, Tensor& y, Tensor& mean, Tensor& var) {
  const Channels g = channels_of(x);
  with_float_type(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* in = x.data<T>();
    std::vector<double> m(static_cast<std::size_t>(g.C), 0.0), v(static_cast<std::size_t>(g.C), 0.0);
    for_each_element(g, [&](std::int64_t i, std::int64_t c) { m[c] += in[i]; });
    for (double& mc : m) mc /= g.M();
    for_each_element(g, [&](std::int64_t i, std::int64_t c) { v[c] += (in[i] - m[c]) * (in[i] - m[c]); });
    for (double& vc : v) vc /= g.M();
    normalize<T>(g, x, gamma, beta, m, v, epsilon, y);  // after the statistics: y may alias x
    round_into(m, mean.data<T>());
    round_into(v, var.data<T>());
  });
}

void ReferenceBackend::batch_norm_forward_inference_impl(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                                         const Tensor& mean, const Tensor& var, double epsilon,
                                                         Tensor& y) {
  with_float_type(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    normalize<T>(channels_of(x), x, gamma, beta, as_doubles<T>(mean), as_doubles<T>(var), epsilon, y);
  });
}

void ReferenceBackend::batch_norm_backward_impl(const Tensor& x, const Tensor& dy, const Tensor& gamma,
                                                const Tensor& mean, const Tensor& var, double epsilon, Tensor& dx,
                                                Tensor& dgamma, Tensor& dbeta) {
  const Channels g = channels_of(x);
  with_float_type(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *in = x.data<T>(), *d_out = dy.data<T>();
    const std::vector<double> m = as_doubles<T>(mean), v = as_doubles<T>(var);
    auto x_hat = [&](std::int64_t i, std::int64_t c) { return (double(in[i]) - m[c]) / std::sqrt(v[c] + epsilon); };
    std::vector<double> sum_dy(static_cast<std::size_t>(g.C), 0.0), sum_dy_xhat(static_cast<std::size_t>(g.C), 0.0);
    for_each_element(g, [&](std::int64_t i, std::int64_t c) {
      sum_dy[c] += d_out[i];
      sum_dy_xhat[c] += d_out[i] * x_hat(i, c);
    });
    if (!dx.empty()) {  // written after every sum is complete: dx may alias dy
      T* d_in = dx.data<T>();
      for_each_element(g, [&](std::int64_t i, std::int64_t c) {
        const double scale = channel_value<T>(gamma, c, 1.0) / std::sqrt(v[c] + epsilon);
        d_in[i] = static_cast<T>(scale * (d_out[i] - (sum_dy[c] + x_hat(i, c) * sum_dy_xhat[c]) / g.M()));
      });
    }
    if (!dgamma.empty()) round_into(sum_dy_xhat, dgamma.data<T>());
    if (!dbeta.empty()) round_into(sum_dy, dbeta.data<T>());
  });
}

}  // namespace ablate::kernels::reference
