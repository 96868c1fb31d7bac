// Dropout mask from the counter-based generator (kernels/counter_random.h), the same on every
// backend, thread count and strategy: mask[i] = (u(seed, first_index + i) < keep) ? 1 / keep : 0 (inverted
// dropout as TF's nn.dropout and Caffe's DropoutLayer scale at training time).
#include "kernels/counter_random.h"
#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/dtype_dispatch.h"
#include "kernels/cpu/parallel_for.h"

namespace ablate::kernels::cpu {

void CpuBackend::dropout_mask_impl(Tensor& mask, double keep_prob, std::uint64_t seed, std::uint64_t first_index) {
  dispatch_float(mask.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* m = mask.data<T>();
    const T kept = static_cast<T>(1.0 / keep_prob);
    parallel_each(loop_threads_, mask.numel(), [=](std::int64_t i) {
      m[i] = counter_uniform(seed, first_index + static_cast<std::uint64_t>(i)) < keep_prob ? kept : T(0);
    });
  });
}

}  // namespace ablate::kernels::cpu
