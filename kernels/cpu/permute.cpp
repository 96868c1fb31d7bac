// Axis permutation on the CPU backends (torch.permute(...).contiguous(), numpy.transpose):
// the output walked row by row (its last dimension), rows split over threads; each row starts
// at the input offset of its index and steps through x by the stride of the input dimension
// that the output's last dimension is (perm[rank - 1]); a row whose input is contiguous
// (heads apart and back: [N,T,H,D] <-> [N,H,T,D]) is one copy. Images to tokens and heads apart
// (backend.h) are the uses.
#include <algorithm>
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
      // The index of row `begin` in y's leading dimensions, decoded once; then carried forward
      // row by row as an odometer, with the input offset kept beside it (no division per row).
      std::vector<std::int64_t> index(static_cast<std::size_t>(rank), 0);
      std::int64_t offset = 0;
      for (std::int64_t d = rank - 2, rest = begin; d >= 0; --d) {
        index[d] = rest % y.dim(d);
        rest /= y.dim(d);
        offset += index[d] * step[d];
      }
      for (std::int64_t row = begin; row < end; ++row) {
        T* o = out + row * width;
        const T* i0 = in + offset;
        if (inner == 1)
          std::copy(i0, i0 + width, o);
        else
          for (std::int64_t i = 0; i < width; ++i) o[i] = i0[i * inner];
        for (int d = rank - 2; d >= 0; --d) {
          offset += step[d];
          if (++index[d] < y.dim(d)) break;
          offset -= index[d] * step[d];
          index[d] = 0;
        }
      }
    });
  });
}

}  // namespace ablate::kernels::cpu
