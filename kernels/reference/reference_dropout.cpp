// Dropout's mask, identical on every backend, thread count and strategy because each element
// draws its own counter-based uniform (kernels/counter_random.h) from (seed, first_index + i):
//   mask[i] = (u(seed, first_index + i) < keep) ? 1 / keep : 0      (inverted dropout, as TF and Torch)
// The layer then computes y = x * mask and dx = dy * mask with mul.
#include "kernels/counter_random.h"
#include "kernels/reference/reference_backend_impl.h"
#include "kernels/reference/reference_loops.h"

namespace ablate::kernels::reference {

void ReferenceBackend::dropout_mask_impl(Tensor& mask, double keep_prob, std::uint64_t seed,
                                         std::uint64_t first_index) {
  with_float_type(mask.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* m = mask.data<T>();
    const T kept = static_cast<T>(1.0 / keep_prob);
    for (std::int64_t i = 0; i < mask.numel(); ++i)
      m[i] = counter_uniform(seed, first_index + static_cast<std::uint64_t>(i)) < keep_prob ? kept : T(0);
  });
}

}  // namespace ablate::kernels::reference
