// Softmax and log-softmax over the rows of [N,K] (Caffe's SoftmaxLayer, Torch's
// nn.LogSoftMax); log-softmax backward: dx = dy - exp(y) * sum_k dy[k] per row.
#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/dtype_dispatch.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/cpu/softmax_rows.h"

namespace ablate::kernels::cpu {

// Applies `row_fn(in, out, k)` to every row of x [N, K] into y, rows split across threads.
template <class RowFn>
void map_rows(int threads, const Tensor& x, Tensor& y, RowFn row_fn) {
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const std::int64_t k = x.dim(1);
    const T* in = x.data<T>();
    T* out = y.data<T>();
    if (k == 0) return;
    parallel_for(threads, x.dim(0), row_grain(k), [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t r = b; r < e; ++r) row_fn(in + r * k, out + r * k, k);
    });
  });
}

void CpuBackend::softmax_forward_impl(const Tensor& x, Tensor& y) {
  map_rows(loop_threads_, x, y, [](const auto* in, auto* out, std::int64_t k) { softmax_row(in, out, k); });
}

void CpuBackend::log_softmax_forward_impl(const Tensor& x, Tensor& y) {
  map_rows(loop_threads_, x, y, [](const auto* in, auto* out, std::int64_t k) { log_softmax_row(in, out, k); });
}

void CpuBackend::log_softmax_backward_impl(const Tensor& y, const Tensor& dy, Tensor& dx) {
  dispatch_float(y.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const std::int64_t k = y.dim(1);
    const T *out = y.data<T>(), *g = dy.data<T>();
    T* d = dx.data<T>();
    parallel_for(loop_threads_, y.dim(0), row_grain(k), [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t r = b; r < e; ++r) {
        double total = 0;
        for (std::int64_t j = 0; j < k; ++j) total += g[r * k + j];
        const T s = static_cast<T>(total);
        for (std::int64_t j = 0; j < k; ++j) d[r * k + j] = g[r * k + j] - std::exp(out[r * k + j]) * s;
      }
    });
  });
}

}  // namespace ablate::kernels::cpu
