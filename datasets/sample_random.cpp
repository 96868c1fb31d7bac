// SplitMix64-based per-sample random numbers (see sample_random.h).
#include "datasets/sample_random.h"

namespace ablate::datasets {

namespace {

constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ULL;

// SplitMix64's output function of state x (Steele, Lea and Flood 2014).
std::uint64_t mix(std::uint64_t x) {
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

}  // namespace

SampleRandom::SampleRandom(std::uint64_t seed, std::uint64_t draw, std::int64_t position, std::uint64_t stage) {
  std::uint64_t s = mix(seed + kGolden);
  s = mix(s ^ (draw + kGolden));
  s = mix(s ^ (static_cast<std::uint64_t>(position) + kGolden));
  state_ = mix(s ^ (stage + kGolden));
}

std::uint64_t SampleRandom::next() {
  state_ += kGolden;
  return mix(state_);
}

double SampleRandom::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

double SampleRandom::uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

std::int64_t SampleRandom::below(std::int64_t n) {
  auto k = static_cast<std::int64_t>(uniform() * static_cast<double>(n));
  return k < n ? k : n - 1;
}

}  // namespace ablate::datasets
