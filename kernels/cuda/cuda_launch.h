// The launch shape that the CUDA backend's own kernels share: 256 threads a block, a grid of
// at most 65535 blocks walked by grid-stride loops over 64-bit indices. Device code only
// (included by the .cu files).
#pragma once

#include <algorithm>
#include <cstdint>

namespace ablate::kernels::cuda {

constexpr int kThreads = 256;

inline int blocks_for(std::int64_t n) {
  return static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>((n + kThreads - 1) / kThreads, 65535)));
}

}  // namespace ablate::kernels::cuda

// for i over [0, n), one element per thread and stride of the whole grid.
#define GRID_LOOP(i, n) \
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < (n); i += std::int64_t(blockDim.x) * gridDim.x)
