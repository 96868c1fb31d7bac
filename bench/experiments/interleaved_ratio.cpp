// The ratio of interleaved rounds (interleaved_ratio.h).
#include "bench/experiments/interleaved_ratio.h"

#include <algorithm>
#include <cmath>

#include "bench/experiments/sample_median.h"
#include "bench/run/text_format.h"

namespace ablate::bench::experiments {

InterleavedRatio interleaved_ratio(const std::vector<double>& ablate, const std::vector<double>& real) {
  InterleavedRatio r;
  r.rounds = static_cast<int>(std::min(ablate.size(), real.size()));
  std::vector<double> ratios, good_ablate, good_real;
  for (int i = 0; i < r.rounds; ++i) {
    const double a = ablate[static_cast<std::size_t>(i)], b = real[static_cast<std::size_t>(i)];
    if (!(std::isfinite(a) && std::isfinite(b) && a > 0 && b > 0)) {
      ++r.failed;
      continue;
    }
    ratios.push_back(a / b);
    good_ablate.push_back(a);
    good_real.push_back(b);
  }
  if (ratios.empty()) return r;
  r.ablate_median = median_of(good_ablate).value;
  r.real_median = median_of(good_real).value;
  r.ratio = cell_means({ratios})[0];
  r.lowest = *std::min_element(ratios.begin(), ratios.end());
  r.highest = *std::max_element(ratios.begin(), ratios.end());
  r.interval = bootstrap_intervals({ratios}, [](const std::vector<double>& means) { return means; })[0];
  return r;
}

std::string interleaved_text(const InterleavedRatio& r, const std::string& real_title) {
  const std::string rounds = std::to_string(r.rounds) + " interleaved round" + (r.rounds == 1 ? "" : "s");
  const std::string failed = r.failed ? ", " + std::to_string(r.failed) + " failed" : "";
  if (!r.measured()) return "not measured (" + rounds + failed + ")";
  const std::string interval = r.interval.ok ? " [" + run::fmt("%.2f", r.interval.low) + ", " + run::fmt("%.2f", r.interval.high) + "]" : "";
  return run::fmt("%.2f", r.ratio) + interval + " over " + rounds + failed + " (rounds " +
         run::fmt("%.2f", r.lowest) + "-" + run::fmt("%.2f", r.highest) + "; ablate " + run::fmt("%.0f", r.ablate_median) + ", " +
         real_title + " " + run::fmt("%.0f", r.real_median) + " images/s, medians)";
}

}  // namespace ablate::bench::experiments
