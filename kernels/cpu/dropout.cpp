// Dropout mask from the counter-based generator (kernels/counter_random.h), the same on every
// backend, thread count and strategy: mask[i] = (u(seed, first_index + i) < keep) ? 1 / keep : 0 (inverted
// dropout as TF's nn.dropout and Caffe's DropoutLayer scale at training time).
#include "kernels/counter_random.h"
#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/dtype_dispatch.h"
#include "kernels/cpu/parallel_for.h"

namespace ablate::kernels::cpu {
namespace {

// Elements [0, n) of a mask whose first element has index `first`. The kept value times the
// comparison, not a choice between two stores: with keep 0.5 the branch GCC made of the choice
// missed every other element (TF MNIST's 50 x 1024 mask: 600 us a step on 2 threads).
template <class T>
void fill_mask(T* __restrict m, std::int64_t n, std::uint64_t seed, std::uint64_t first, double keep, T kept) {
  for (std::int64_t i = 0; i < n; ++i)
    m[i] = kept * static_cast<T>(counter_uniform(seed, first + static_cast<std::uint64_t>(i)) < keep);
}

}  // namespace

void CpuBackend::dropout_mask_impl(Tensor& mask, double keep_prob, std::uint64_t seed, std::uint64_t first_index) {
  dispatch_float(mask.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* m = mask.data<T>();
    const T kept = static_cast<T>(1.0 / keep_prob);
    parallel_for(loop_threads_, mask.numel(), kElementwiseGrain, [=](std::int64_t begin, std::int64_t end) {
      fill_mask(m + begin, end - begin, seed, first_index + static_cast<std::uint64_t>(begin), keep_prob, kept);
    });
  });
}

}  // namespace ablate::kernels::cpu
