// SampleRandom: the random choices of one transform rule for one sample, defined by numbers
// alone so that augmented batches repeat bit for bit: (seed, draw, position, stage) are mixed
// with SplitMix64 into a state, and each call takes the next SplitMix64 output. `draw` is the
// loader's batch number, `position` the sample's place in the batch and `stage` the rule's
// place in the transform, so one rule's choices do not move when another rule is added.
// (TF's random ops draw from Philox streams per op; the values differ, the distributions not.)
#pragma once

#include <cstdint>

namespace ablate::datasets {

class SampleRandom {
 public:
  SampleRandom(std::uint64_t seed, std::uint64_t draw, std::int64_t position, std::uint64_t stage);

  std::uint64_t next();
  // Uniform in [0, 1) with 53 random bits.
  double uniform();
  // Uniform in [lo, hi) (TF random_uniform(minval=lo, maxval=hi)).
  double uniform(double lo, double hi);
  // Uniform integer in [0, n), n > 0: floor(uniform() * n).
  std::int64_t below(std::int64_t n);

 private:
  std::uint64_t state_;
};

}  // namespace ablate::datasets
