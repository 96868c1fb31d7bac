// A counter-based random number: uniform in [0, 1) from (seed, index) alone, so dropout
// masks are identical on every backend, thread count and strategy (like Philox in cuRAND,
// here SplitMix64's finaliser, which is enough for masks). Plain C++ that nvcc also compiles
// for the device (the CUDA dropout kernel, cuda/cuda_elementwise_bodies.h).
#pragma once

#include <cstdint>

#include "kernels/host_device.h"

namespace ablate::kernels {

ABLATE_HOST_DEVICE inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Uniform in [0, 1) with 53 random bits.
ABLATE_HOST_DEVICE inline double counter_uniform(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t z = mix64(seed * 0x9e3779b97f4a7c15ULL + mix64(index + 0x632be59bd9b4e019ULL));
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

}  // namespace ablate::kernels
