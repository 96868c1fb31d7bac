// Layer normalisation over the last axis (nn.LayerNorm(D)) on the CPU backends, x viewed as
// [R, D]: the forward and dx split the rows over threads (one row's statistics in double);
// dgamma and dbeta, sums over rows, split the D features over threads, each feature summing its
// column in row order, so results do not depend on the thread count. Formulas: backend.h.
#include <cmath>

#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/dtype_dispatch.h"
#include "kernels/cpu/parallel_for.h"

namespace ablate::kernels::cpu {

void CpuBackend::layer_norm_forward_impl(const Tensor& x, const Tensor& gamma, const Tensor& beta, double epsilon,
                                         Tensor& y, Tensor& mean, Tensor& rstd) {
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const std::int64_t D = x.dim(x.ndim() - 1);
    const T* in = x.data<T>();
    const T* g = gamma.empty() ? nullptr : gamma.data<T>();
    const T* b = beta.empty() ? nullptr : beta.data<T>();
    T *out = y.data<T>(), *mu_out = mean.data<T>(), *rstd_out = rstd.data<T>();
    parallel_for(loop_threads_, x.numel() / D, row_grain(D), [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t r = begin; r < end; ++r) {
        const T* row = in + r * D;
        double sum = 0, squares = 0;
        for (std::int64_t d = 0; d < D; ++d) sum += row[d];
        const double mu = sum / static_cast<double>(D);
        for (std::int64_t d = 0; d < D; ++d) squares += (row[d] - mu) * (row[d] - mu);
        const T m = static_cast<T>(mu), inv = static_cast<T>(1.0 / std::sqrt(squares / static_cast<double>(D) + epsilon));
        mu_out[r] = m;
        rstd_out[r] = inv;
        T* o = out + r * D;
        if (g)
          for (std::int64_t d = 0; d < D; ++d) o[d] = g[d] * ((row[d] - m) * inv) + b[d];
        else
          for (std::int64_t d = 0; d < D; ++d) o[d] = (row[d] - m) * inv;
      }
    });
  });
}

void CpuBackend::layer_norm_backward_impl(const Tensor& x, const Tensor& dy, const Tensor& gamma, const Tensor& mean,
                                          const Tensor& rstd, Tensor& dx, Tensor& dgamma, Tensor& dbeta) {
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const std::int64_t D = x.dim(x.ndim() - 1), R = x.numel() / D;
    const T *in = x.data<T>(), *grad = dy.data<T>(), *mu = mean.data<T>(), *inv = rstd.data<T>();
    const T* gam = gamma.empty() ? nullptr : gamma.data<T>();
    if (!dgamma.empty() || !dbeta.empty()) {
      T* dg = dgamma.empty() ? nullptr : dgamma.data<T>();
      T* db = dbeta.empty() ? nullptr : dbeta.data<T>();
      parallel_for(loop_threads_, D, 1, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t d = begin; d < end; ++d) {
          double sg = 0, sb = 0;
          for (std::int64_t r = 0; r < R; ++r) {
            sg += static_cast<double>(grad[r * D + d]) * ((in[r * D + d] - mu[r]) * inv[r]);
            sb += grad[r * D + d];
          }
          if (dg) dg[d] = static_cast<T>(sg);
          if (db) db[d] = static_cast<T>(sb);
        }
      });
    }
    if (dx.empty()) return;
    T* out = dx.data<T>();
    parallel_for(loop_threads_, R, row_grain(D), [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t r = begin; r < end; ++r) {
        double sum_g = 0, sum_gx = 0;
        for (std::int64_t d = 0; d < D; ++d) {
          const double g = (gam ? gam[d] : T(1)) * grad[r * D + d];
          sum_g += g;
          sum_gx += g * ((in[r * D + d] - mu[r]) * inv[r]);
        }
        const T mean_g = static_cast<T>(sum_g / static_cast<double>(D));
        const T mean_gx = static_cast<T>(sum_gx / static_cast<double>(D));
        for (std::int64_t d = 0; d < D; ++d) {
          const T xhat = (in[r * D + d] - mu[r]) * inv[r];
          const T g = (gam ? gam[d] : T(1)) * grad[r * D + d];
          out[r * D + d] = inv[r] * (g - mean_g - xhat * mean_gx);
        }
      }
    });
  });
}

}  // namespace ablate::kernels::cpu
