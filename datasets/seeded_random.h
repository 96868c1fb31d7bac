// Seeded random choices defined bit for bit on every platform: std::mt19937_64 is fully
// specified by the standard, but std::shuffle and std::uniform_int_distribution are not
// (libstdc++ and libc++ give different orders), so the loader's shuffles and the synthetic
// set use these instead. A run's sample order then depends on its seed alone.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace ablate::datasets {

// Uniform integer in [0, n), n > 0, by rejection (no modulo bias).
std::uint64_t uniform_below(std::mt19937_64& rng, std::uint64_t n);

// Fisher-Yates shuffle of `values` with `rng`.
void seeded_shuffle(std::vector<std::int64_t>& values, std::mt19937_64& rng);

// A generator for stream `stream` of `seed` (e.g. one per epoch), through std::seed_seq so
// that nearby seeds and streams give unrelated sequences.
std::mt19937_64 seeded_generator(std::uint64_t seed, std::uint64_t stream);

}  // namespace ablate::datasets
