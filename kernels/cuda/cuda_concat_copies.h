// The strided copies of concatenation along axis 1 on the CUDA backend (cuda_concat.cpp), in
// plain C++ so that the host run checks them (tests/kernels/cuda_host_layer_kernels_test.cpp).
// Viewed as [N, C, inner], part k is, in the whole, N rows of C_k * inner contiguous elements
// spaced one sample of the whole apart: one 2-D copy (cudaMemcpy2DAsync's arguments) per part.
#pragma once

#include <cstddef>
#include <vector>

namespace ablate::kernels::cuda {

// rows rows of width bytes; row r of the part is bytes [offset + r * pitch, ... + width) of the whole.
struct ConcatCopy {
  std::size_t offset, width, pitch, rows;
};

// The copies of parts of part_bytes[k] bytes per sample into a whole of `samples` samples of
// whole_bytes bytes each (their sum; a part of no bytes gets no rows).
inline std::vector<ConcatCopy> concat_copies(const std::vector<std::size_t>& part_bytes, std::size_t whole_bytes,
                                             std::size_t samples) {
  std::vector<ConcatCopy> copies;
  std::size_t offset = 0;
  for (std::size_t width : part_bytes) {
    copies.push_back({offset, width, whole_bytes, width > 0 ? samples : 0});
    offset += width;
  }
  return copies;
}

}  // namespace ablate::kernels::cuda
