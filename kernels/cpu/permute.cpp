// Axis permutation on the CPU backends (torch.permute(...).contiguous(), numpy.transpose):
// the output walked row by row (its last dimension), rows split over threads; each row starts
// at the input offset of its index and steps through x by the stride of the input dimension
// that the output's last dimension is (perm[rank - 1]). Images to tokens and heads apart
// (backend.h) are the uses.
#include <vector>

#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/dtype_dispatch.h"
#include "kernels/cpu/parallel_for.h"

namespace ablate::kernels::cpu {

void CpuBackend::permute_impl(const Tensor& x, const std::vector<int>& perm, Tensor& y) {
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const int rank = x.ndim();
    std::vector<std::int64_t> in_stride(static_cast<std::size_t>(rank), 1), step(static_cast<std::size_t>(rank));
    for (int d = rank - 2; d >= 0; --d) in_stride[d] = in_stride[d + 1] * x.dim(d + 1);
    for (int d = 0; d < rank; ++d) step[d] = in_stride[perm[d]];  // x's stride along y's dimension d
    const std::int64_t width = y.dim(rank - 1), inner = step[rank - 1];
    const T* in = x.data<T>();
    T* out = y.data<T>();
    parallel_for(loop_threads_, y.numel() / width, row_grain(width), [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t row = begin; row < end; ++row) {
        std::int64_t rest = row, offset = 0;
        for (int d = rank - 2; d >= 0; --d) {
          offset += (rest % y.dim(d)) * step[d];
          rest /= y.dim(d);
        }
        T* o = out + row * width;
        for (std::int64_t i = 0; i < width; ++i) o[i] = in[offset + i * inner];
      }
    });
  });
}

}  // namespace ablate::kernels::cpu
