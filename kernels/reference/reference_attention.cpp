// The attention ops (tokens [N, T, D]) as plain loops (the oracle): softmax along the last axis with a
// scale, layer normalisation over the last axis, and axis permutation. Each row's sums
// accumulate in double and round once. batched_gemm is the Backend's default loop over this
// backend's gemm triple loop (kernels/batched_gemm_loop.cpp).
#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/reference/reference_backend_impl.h"
#include "kernels/reference/reference_loops.h"

namespace ablate::kernels::reference {
namespace {

std::int64_t last_dim(const Tensor& t) { return t.dim(t.ndim() - 1); }

}  // namespace

// y[r, k] = exp(s x[r, k] - max_j s x[r, j]) / sum_j exp(s x[r, j] - max_j s x[r, j])
void ReferenceBackend::softmax_last_forward_impl(const Tensor& x, double scale, Tensor& y) {
  with_float_type(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const std::int64_t K = last_dim(x), R = x.numel() / K;
    const T* in = x.data<T>();
    T* out = y.data<T>();
    std::vector<double> e(static_cast<std::size_t>(K));
    for (std::int64_t r = 0; r < R; ++r) {
      double m = scale * in[r * K];
      for (std::int64_t k = 1; k < K; ++k) m = std::max(m, scale * in[r * K + k]);
      double total = 0;
      for (std::int64_t k = 0; k < K; ++k) total += e[k] = std::exp(scale * in[r * K + k] - m);
      for (std::int64_t k = 0; k < K; ++k) out[r * K + k] = static_cast<T>(e[k] / total);
    }
  });
}

// dx[r, k] = s y[r, k] (dy[r, k] - sum_j dy[r, j] y[r, j])
void ReferenceBackend::softmax_last_backward_impl(const Tensor& y, const Tensor& dy, double scale, Tensor& dx) {
  with_float_type(y.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const std::int64_t K = last_dim(y), R = y.numel() / K;
    const T *p = y.data<T>(), *g = dy.data<T>();
    T* d = dx.data<T>();
    for (std::int64_t r = 0; r < R; ++r) {
      double dot = 0;
      for (std::int64_t k = 0; k < K; ++k) dot += static_cast<double>(g[r * K + k]) * p[r * K + k];
      for (std::int64_t k = 0; k < K; ++k) d[r * K + k] = static_cast<T>(scale * p[r * K + k] * (g[r * K + k] - dot));
    }
  });
}

void ReferenceBackend::layer_norm_forward_impl(const Tensor& x, const Tensor& gamma, const Tensor& beta, double epsilon,
                                               Tensor& y, Tensor& mean, Tensor& rstd) {
  with_float_type(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const std::int64_t D = last_dim(x), R = x.numel() / D;
    const T* in = x.data<T>();
    const T* g = gamma.empty() ? nullptr : gamma.data<T>();
    const T* b = beta.empty() ? nullptr : beta.data<T>();
    T* out = y.data<T>();
    for (std::int64_t r = 0; r < R; ++r) {
      double mu = 0, var = 0;
      for (std::int64_t d = 0; d < D; ++d) mu += in[r * D + d];
      mu /= static_cast<double>(D);
      for (std::int64_t d = 0; d < D; ++d) var += (in[r * D + d] - mu) * (in[r * D + d] - mu);
      var /= static_cast<double>(D);
      const double inv = 1.0 / std::sqrt(var + epsilon);
      mean.data<T>()[r] = static_cast<T>(mu);
      rstd.data<T>()[r] = static_cast<T>(inv);
      for (std::int64_t d = 0; d < D; ++d) {
        const double xhat = (in[r * D + d] - mu) * inv;
        out[r * D + d] = static_cast<T>(g ? g[d] * xhat + b[d] : xhat);
      }
    }
  });
}

// With x_hat = (x - mean) rstd and g = gamma dy per row:
//   dx = rstd (g - mean_d(g) - x_hat mean_d(g x_hat)); dgamma = sum_r dy x_hat; dbeta = sum_r dy
void ReferenceBackend::layer_norm_backward_impl(const Tensor& x, const Tensor& dy, const Tensor& gamma,
                                                const Tensor& mean, const Tensor& rstd, Tensor& dx, Tensor& dgamma,
                                                Tensor& dbeta) {
  with_float_type(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const std::int64_t D = last_dim(x), R = x.numel() / D;
    const T *in = x.data<T>(), *grad = dy.data<T>();
    const T* gam = gamma.empty() ? nullptr : gamma.data<T>();
    std::vector<double> sum_gamma(static_cast<std::size_t>(D), 0.0), sum_beta(static_cast<std::size_t>(D), 0.0);
    for (std::int64_t r = 0; r < R; ++r) {
      const double mu = mean.data<T>()[r], inv = rstd.data<T>()[r];
      double mean_g = 0, mean_gx = 0;
      for (std::int64_t d = 0; d < D; ++d) {
        const double xhat = (in[r * D + d] - mu) * inv;
        const double g = (gam ? gam[d] : 1.0) * grad[r * D + d];
        mean_g += g;
        mean_gx += g * xhat;
        sum_gamma[d] += grad[r * D + d] * xhat;
        sum_beta[d] += grad[r * D + d];
      }
      mean_g /= static_cast<double>(D);
      mean_gx /= static_cast<double>(D);
      if (dx.empty()) continue;
      for (std::int64_t d = 0; d < D; ++d) {
        const double xhat = (in[r * D + d] - mu) * inv;
        const double g = (gam ? gam[d] : 1.0) * grad[r * D + d];
        dx.data<T>()[r * D + d] = static_cast<T>(inv * (g - mean_g - xhat * mean_gx));
      }
    }
    for (std::int64_t d = 0; d < D; ++d) {
      if (!dgamma.empty()) dgamma.data<T>()[d] = static_cast<T>(sum_gamma[d]);
      if (!dbeta.empty()) dbeta.data<T>()[d] = static_cast<T>(sum_beta[d]);
    }
  });
}

// Every output element decodes its index (last dimension fastest) and reads x at the index
// whose dimension perm[d] is the output's index along d.
void ReferenceBackend::permute_impl(const Tensor& x, const std::vector<int>& perm, Tensor& y) {
  with_float_type(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const int rank = x.ndim();
    std::vector<std::int64_t> in_stride(static_cast<std::size_t>(rank), 1);
    for (int d = rank - 2; d >= 0; --d) in_stride[d] = in_stride[d + 1] * x.dim(d + 1);
    const T* in = x.data<T>();
    T* out = y.data<T>();
    for (std::int64_t i = 0; i < y.numel(); ++i) {
      std::int64_t rest = i, offset = 0;
      for (int d = rank - 1; d >= 0; --d) {
        const std::int64_t index = rest % y.dim(d);
        rest /= y.dim(d);
        offset += index * in_stride[perm[d]];
      }
      out[i] = in[offset];
    }
  });
}

}  // namespace ablate::kernels::reference
