// How far a real framework's loss curve is from ablate's over the same first N steps, from the
// same initial weights with the random parts off (`ablate compare --with-real`):
//   largest = max over steps s = 1..N of |peer_s - ablate_s| / |ablate_s|
// (0 where both are 0; infinite where ablate's is 0 and the peer's not, or either is not
// finite). Both curves must hold every step; a missing step is named instead of a number.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace ablate::bench::experiments {

struct CurveDifference {
  std::int64_t steps = 0;    // steps compared
  double largest = 0;        // the largest relative difference
  std::int64_t at_step = 0;  // the step where it is (the first such)
  std::string problem;       // "" or why there is no number: a step missing on one side

  bool measured() const { return problem.empty() && steps > 0; }
};

// `ablate` and `peer` map each step (from 1) to its loss; compares steps 1..`steps`.
CurveDifference curve_difference(const std::map<std::int64_t, double>& ablate, const std::map<std::int64_t, double>& peer,
                                 std::int64_t steps);
// "2.9e-03 at step 87" or the problem.
std::string curve_text(const CurveDifference& d);

}  // namespace ablate::bench::experiments
