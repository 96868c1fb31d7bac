// ablate's speed over a real framework's from interleaved rounds (`ablate compare --with-real
// --real-rounds N`): each round times the real framework's path and then ablate, each in a
// process of its own for about the same seconds, so that a drift of a shared machine's speed
// (minutes apart, the two full runs of a comparison can differ by 30% on a noisy host) reaches
// both sides of a round alike. The figure is the mean of the rounds' ratios ablate / real, with a
// 95% bootstrap interval over the rounds (bootstrap_interval.h); a round where either side failed
// is counted and left out of the ratios.
#pragma once

#include <string>
#include <vector>

#include "bench/experiments/bootstrap_interval.h"

namespace ablate::bench::experiments {

struct InterleavedRatio {
  int rounds = 0;               // rounds taken (0: none asked for)
  int failed = 0;               // rounds where a side failed
  double ablate_median = 0, real_median = 0;  // images/s over the rounds that succeeded
  double ratio = 0;             // mean of the rounds' ablate / real
  double lowest = 0, highest = 0;  // the smallest and largest round ratio
  Interval interval;            // of the mean ratio; none with fewer than two good rounds
  bool measured() const { return rounds > failed; }
};

// From the two sides' samples, one per round, in round order (kFailedSample where a side failed).
InterleavedRatio interleaved_ratio(const std::vector<double>& ablate, const std::vector<double>& real);

// "1.28 [1.21, 1.35] over 5 interleaved rounds (rounds 1.19-1.37; ablate 2310, TensorFlow 1805
// images/s, medians)", naming the real side `real_title`; "not measured (...)" when no round
// succeeded.
std::string interleaved_text(const InterleavedRatio& r, const std::string& real_title);

}  // namespace ablate::bench::experiments
