// Contrasts and the estimable terms of a two-level design (two_level_effects.h).
#include "bench/experiments/two_level_effects.h"

#include <algorithm>
#include <bit>
#include <set>
#include <stdexcept>

namespace ablate::bench::experiments {

double contrast(const TwoLevelDesign& d, const std::vector<double>& y, std::uint64_t effect) {
  if (y.size() != d.runs.size())
    throw std::invalid_argument("a contrast over " + std::to_string(y.size()) + " responses for a design of " +
                                std::to_string(d.runs.size()) + " runs");
  double s = 0;
  for (std::size_t i = 0; i < d.runs.size(); ++i) {
    int sign = 1;
    for (int j = 0; j < d.factors; ++j)
      if (effect >> j & 1) sign *= d.runs[i][static_cast<std::size_t>(j)];
    s += sign * y[i];
  }
  return 2 * s / static_cast<double>(d.runs.size());
}

std::vector<EstimableTerm> estimable_terms(const TwoLevelDesign& d) {
  std::vector<EstimableTerm> terms;
  std::set<std::uint64_t> named;  // effects already in a group
  auto add = [&](std::uint64_t e) {
    if (named.count(e)) return;
    EstimableTerm t{e, {}};
    named.insert(e);
    for (std::uint64_t a : aliases(d, e))
      if (std::popcount(a) <= 2 && a != 0) {
        t.aliased_with.push_back(a);
        named.insert(a);
      }
    terms.push_back(t);
  };
  for (int j = 0; j < d.factors; ++j) add(std::uint64_t{1} << j);
  for (int a = 0; a < d.factors; ++a)
    for (int b = a + 1; b < d.factors; ++b) add((std::uint64_t{1} << a) | (std::uint64_t{1} << b));
  return terms;
}

}  // namespace ablate::bench::experiments
