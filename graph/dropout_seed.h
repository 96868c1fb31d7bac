// The seed of a dropout layer's mask at one iteration, derived from the engine seed, the
// layer's name and the iteration alone, so that every strategy (layer-wise, dynamic, static)
// draws the same mask for the same run; the mask itself is Backend::dropout_mask, a
// counter-based hash of (seed, element index), identical on every backend.
#pragma once

#include <cstdint>
#include <string>

#include "kernels/counter_random.h"

namespace ablate::graph {

inline std::uint64_t dropout_seed(std::uint64_t engine_seed, const std::string& layer, std::int64_t iteration) {
  std::uint64_t name_hash = 0xcbf29ce484222325ULL;  // FNV-1a of the layer name
  for (unsigned char c : layer) name_hash = (name_hash ^ c) * 0x100000001b3ULL;
  return kernels::mix64(kernels::mix64(engine_seed ^ name_hash) + static_cast<std::uint64_t>(iteration));
}

}  // namespace ablate::graph
