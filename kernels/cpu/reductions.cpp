// Reductions: sum and sum of squares in double (deterministic for a thread count: per-thread
// partials added in thread order), and the argmax of each row (accuracy; ties take the
// lowest index, as Caffe's AccuracyLayer with top_k 1 and numpy's argmax).
#include "kernels/cpu/accumulate.h"
#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/dtype_dispatch.h"
#include "kernels/cpu/parallel_for.h"

namespace ablate::kernels::cpu {

double CpuBackend::sum_impl(const Tensor& x) {
  return dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* p = x.data<T>();
    return parallel_sum(loop_threads_, x.numel(), kElementwiseGrain,
                        [=](std::int64_t b, std::int64_t e) { return sum_run(p + b, e - b); });
  });
}

double CpuBackend::sum_squares_impl(const Tensor& x) {
  return dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* p = x.data<T>();
    return parallel_sum(loop_threads_, x.numel(), kElementwiseGrain,
                        [=](std::int64_t b, std::int64_t e) { return sum_squares_run(p + b, e - b); });
  });
}

void CpuBackend::argmax_rows_impl(const Tensor& x, Tensor& out) {
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* p = x.data<T>();
    std::int32_t* o = out.data<std::int32_t>();
    const std::int64_t k = x.dim(1);
    parallel_for(loop_threads_, x.dim(0), row_grain(k), [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t r = b; r < e; ++r) {
        std::int64_t best = 0;
        for (std::int64_t j = 1; j < k; ++j)
          if (p[r * k + j] > p[r * k + best]) best = j;
        o[r] = static_cast<std::int32_t>(best);
      }
    });
  });
}

}  // namespace ablate::kernels::cpu
