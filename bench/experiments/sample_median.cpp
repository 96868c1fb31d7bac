// The median that counts its failed samples (sample_median.h).
#include "bench/experiments/sample_median.h"

#include <algorithm>
#include <cmath>

#include "bench/run/median.h"
#include "bench/run/text_format.h"

namespace ablate::bench::experiments {

Median median_of(const std::vector<double>& samples, bool positive) {
  Median m;
  m.samples = samples.size();
  std::vector<double> good;
  for (double x : samples)
    if (std::isfinite(x) && (!positive || x > 0)) good.push_back(x);
  m.failed = samples.size() - good.size();
  if (!good.empty()) m.value = run::median(std::move(good));
  return m;
}

std::string median_text(const Median& m, const char* format) {
  if (m.samples == 0) return "-";
  const std::string counts = std::to_string(m.failed) + " of " + std::to_string(m.samples) + " failed";
  if (!m.ok()) return "failed (" + std::to_string(m.failed) + " of " + std::to_string(m.samples) + ")";
  return run::fmt(format, m.value) + (m.failed ? " (" + counts + ")" : "");
}

}  // namespace ablate::bench::experiments
