// The largest relative difference of two loss curves (curve_difference.h).
#include "bench/experiments/curve_difference.h"

#include <cmath>
#include <limits>

#include "bench/run/text_format.h"

namespace ablate::bench::experiments {

namespace {

double relative(double mine, double theirs) {
  if (!std::isfinite(mine) || !std::isfinite(theirs)) return std::numeric_limits<double>::infinity();
  if (mine == theirs) return 0;
  if (mine == 0) return std::numeric_limits<double>::infinity();
  return std::fabs(theirs - mine) / std::fabs(mine);
}

}  // namespace

CurveDifference curve_difference(const std::map<std::int64_t, double>& ablate, const std::map<std::int64_t, double>& peer,
                                 std::int64_t steps) {
  CurveDifference d;
  for (std::int64_t s = 1; s <= steps; ++s) {
    const auto a = ablate.find(s), p = peer.find(s);
    if (a == ablate.end() || p == peer.end()) {
      d.problem = std::string(a == ablate.end() ? "ablate" : "the peer") + " has no loss for step " + std::to_string(s) +
                  " of " + std::to_string(steps) + " (" + std::to_string((a == ablate.end() ? ablate : peer).size()) +
                  " steps printed)";
      return d;
    }
    const double r = relative(a->second, p->second);
    if (d.steps == 0 || r > d.largest) {
      d.largest = r;
      d.at_step = s;
    }
    ++d.steps;
  }
  if (steps <= 0) d.problem = "no steps compared";
  return d;
}

std::string curve_text(const CurveDifference& d) {
  if (!d.measured()) return d.problem;
  return run::fmt("%.1e", d.largest) + " at step " + std::to_string(d.at_step);
}

}  // namespace ablate::bench::experiments
