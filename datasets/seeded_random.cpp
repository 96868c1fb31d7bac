// Portable seeded integers, shuffles and generators (see seeded_random.h).
#include "datasets/seeded_random.h"

#include <utility>

namespace ablate::datasets {

std::uint64_t uniform_below(std::mt19937_64& rng, std::uint64_t n) {
  // Accept draws below the largest multiple of n; the rest would bias the low values.
  std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  for (;;) {
    std::uint64_t r = rng();
    if (r < limit) return r % n;
  }
}

void seeded_shuffle(std::vector<std::int64_t>& values, std::mt19937_64& rng) {
  for (std::size_t i = values.size(); i > 1; --i) {
    std::size_t j = static_cast<std::size_t>(uniform_below(rng, i));
    std::swap(values[i - 1], values[j]);
  }
}

std::mt19937_64 seeded_generator(std::uint64_t seed, std::uint64_t stream) {
  std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                    static_cast<std::uint32_t>(stream), static_cast<std::uint32_t>(stream >> 32)};
  return std::mt19937_64(seq);
}

}  // namespace ablate::datasets
