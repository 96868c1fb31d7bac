// Softmax along the last axis with a scale (attention's softmax(Q K^T / sqrt(d))) on the CPU
// backends: rows split over threads, each row scaled into y and then normalised by the shared
// max-subtracted row softmax (softmax_rows.h). Backward from y:
//   dx = s y (dy - sum_k dy y)  per row, the sum in double.
#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/dtype_dispatch.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/cpu/softmax_rows.h"

namespace ablate::kernels::cpu {

void CpuBackend::softmax_last_forward_impl(const Tensor& x, double scale, Tensor& y) {
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const std::int64_t k = x.dim(x.ndim() - 1);
    const T* in = x.data<T>();
    T* out = y.data<T>();
    const T s = static_cast<T>(scale);
    parallel_for(loop_threads_, x.numel() / k, row_grain(k), [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t r = b; r < e; ++r) {
        for (std::int64_t j = 0; j < k; ++j) out[r * k + j] = s * in[r * k + j];
        softmax_row(out + r * k, out + r * k, k);
      }
    });
  });
}

void CpuBackend::softmax_last_backward_impl(const Tensor& y, const Tensor& dy, double scale, Tensor& dx) {
  dispatch_float(y.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const std::int64_t k = y.dim(y.ndim() - 1);
    const T *p = y.data<T>(), *g = dy.data<T>();
    T* d = dx.data<T>();
    parallel_for(loop_threads_, y.numel() / k, row_grain(k), [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t r = b; r < e; ++r) {
        double dot = 0;
        for (std::int64_t j = 0; j < k; ++j) dot += static_cast<double>(g[r * k + j]) * p[r * k + j];
        const T centre = static_cast<T>(dot), s = static_cast<T>(scale);
        for (std::int64_t j = 0; j < k; ++j) d[r * k + j] = s * p[r * k + j] * (g[r * k + j] - centre);
      }
    });
  });
}

}  // namespace ablate::kernels::cpu
