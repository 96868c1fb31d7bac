// The seed of a dropout layer's mask at one iteration, derived from the engine seed, the
// layer's name and the iteration alone, so that every strategy (layer-wise, dynamic, static)
// draws the same mask for the same run; the mask itself is Backend::dropout_mask, a
// counter-based hash of (seed, element index), identical on every backend. A data-parallel
// rank's mask [local batch, ...] is the slice of the global batch's mask that starts at its
// first sample (EngineOptions::first_sample): dropout_first_index.
#pragma once

#include <cstdint>
#include <string>

#include "kernels/counter_random.h"
#include "kernels/tensor.h"

namespace ablate::graph {

inline std::uint64_t dropout_seed(std::uint64_t engine_seed, const std::string& layer, std::int64_t iteration) {
  std::uint64_t name_hash = 0xcbf29ce484222325ULL;  // FNV-1a of the layer name
  for (unsigned char c : layer) name_hash = (name_hash ^ c) * 0x100000001b3ULL;
  return kernels::mix64(kernels::mix64(engine_seed ^ name_hash) + static_cast<std::uint64_t>(iteration));
}

// The global index of element 0 of `mask` [N, ...] whose sample 0 is sample `first_sample`
// of the global batch: first_sample x (elements per sample).
inline std::uint64_t dropout_first_index(std::int64_t first_sample, const kernels::Tensor& mask) {
  if (first_sample == 0 || mask.ndim() == 0 || mask.dim(0) == 0) return 0;
  return static_cast<std::uint64_t>(first_sample) * static_cast<std::uint64_t>(mask.numel() / mask.dim(0));
}

}  // namespace ablate::graph
