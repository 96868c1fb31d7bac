// Layer normalisation over the last axis (nn.LayerNorm(D)) on the CPU backends, x viewed as
// [R, D]: the forward and dx split the rows over threads (one row's sums in double, in
// kLanes partial sums); dgamma and dbeta, sums over rows, split the D features over threads,
// each feature summing its column in row order (the rows walked in memory order, a thread's
// features side by side), so results do not depend on the thread count. Formulas: backend.h.
#include <cmath>
#include <vector>

#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/dtype_dispatch.h"
#include "kernels/cpu/parallel_for.h"

namespace ablate::kernels::cpu {

namespace {

// sum over d < n of f(d) in double, as kLanes partial sums (d % kLanes) added in a fixed order
// at the end: the lanes break the chain of dependent additions, so the compiler can vectorise
// the loop, and the result depends on n alone, never on the threads.
constexpr int kLanes = 8;
template <class F>
double lane_sum(std::int64_t n, F f) {
  double lane[kLanes] = {};
  std::int64_t d = 0;
  for (; d + kLanes <= n; d += kLanes)
    for (int j = 0; j < kLanes; ++j) lane[j] += f(d + j);
  for (int j = 0; d < n; ++d, ++j) lane[j] += f(d);
  double sum = 0;
  for (double v : lane) sum += v;
  return sum;
}

}  // namespace

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
        const double mu = lane_sum(D, [&](std::int64_t d) { return static_cast<double>(row[d]); }) / static_cast<double>(D);
        const double squares = lane_sum(D, [&](std::int64_t d) { return (row[d] - mu) * (row[d] - mu); });
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
        std::vector<double> sg(static_cast<std::size_t>(end - begin)), sb(sg.size());
        for (std::int64_t r = 0; r < R; ++r) {
          const T *g_row = grad + r * D, *x_row = in + r * D;
          const T m = mu[r], s = inv[r];
          for (std::int64_t d = begin; d < end; ++d) {
            sg[d - begin] += static_cast<double>(g_row[d]) * ((x_row[d] - m) * s);
            sb[d - begin] += g_row[d];
          }
        }
        for (std::int64_t d = begin; d < end; ++d) {
          if (dg) dg[d] = static_cast<T>(sg[d - begin]);
          if (db) db[d] = static_cast<T>(sb[d - begin]);
        }
      });
    }
    if (dx.empty()) return;
    T* out = dx.data<T>();
    parallel_for(loop_threads_, R, row_grain(D), [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t r = begin; r < end; ++r) {
        const T *g_row = grad + r * D, *x_row = in + r * D;
        const T m = mu[r], s = inv[r];
        auto g = [&](std::int64_t d) { return static_cast<double>((gam ? gam[d] : T(1)) * g_row[d]); };
        const double sum_g = lane_sum(D, g);
        const double sum_gx = lane_sum(D, [&](std::int64_t d) { return g(d) * ((x_row[d] - m) * s); });
        const T mean_g = static_cast<T>(sum_g / static_cast<double>(D));
        const T mean_gx = static_cast<T>(sum_gx / static_cast<double>(D));
        T* o = out + r * D;
        for (std::int64_t d = 0; d < D; ++d)
          o[d] = s * ((gam ? gam[d] : T(1)) * g_row[d] - mean_g - (x_row[d] - m) * s * mean_gx);
      }
    });
  });
}

}  // namespace ablate::kernels::cpu
