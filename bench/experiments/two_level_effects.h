// Effects of a two-level design (factorial_design.h) from one response per run (the mean of its
// repeats): the standard contrast estimate
//   effect(S) = (2 / N) * sum_i ( prod_{j in S} x_ij ) * y_i,    x_ij = -1 or +1, N runs,
// so a main effect is mean(y at the second level) - mean(y at the first), and a two-factor
// interaction AB is half the difference between A's effect at B's second level and at its first
// (Montgomery's convention): with y = m + a*[A] + b*[B] + c*[A][B] ([X] = 1 at X's second
// level), A's effect is a + c/2 and the interaction c/2.
// In a fractional design a contrast estimates the sum of an alias group; estimable_terms lists
// the main effects and one two-factor interaction per alias group (the others named beside it).
#pragma once

#include <cstdint>
#include <vector>

#include "bench/experiments/factorial_design.h"

namespace ablate::bench::experiments {

double contrast(const TwoLevelDesign& d, const std::vector<double>& y, std::uint64_t effect);

struct EstimableTerm {
  std::uint64_t effect = 0;                  // a main effect or a two-factor interaction
  std::vector<std::uint64_t> aliased_with;   // its aliases of at most two factors (fractions)
};
// The k main effects, then the two-factor interactions in order (AB, AC, ..., BC, ...), each
// alias group once: a main effect aliased with a two-factor interaction (resolution III) lists
// it, and an interaction aliased with an earlier one is left out (named by that one).
std::vector<EstimableTerm> estimable_terms(const TwoLevelDesign& d);

}  // namespace ablate::bench::experiments
