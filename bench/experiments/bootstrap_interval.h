// Uncertainty of figures computed from repeated measurements, for `ablate ablate` and
// `ablate compare --attribute`: 95% intervals by the percentile bootstrap over the repeats, the
// run-to-run spread, and the rule that marks an effect "within noise".
//
// Cells are the configurations measured, each with its repeats (a failed repeat is not a sample
// here; its cell shows it elsewhere). A statistic maps the cells' means to figures (effects,
// Shapley values). One bootstrap replicate draws, in every cell independently, as many repeats
// as it has with replacement, takes the means, and computes the statistic; the interval of a
// figure is the 2.5th and 97.5th percentiles of its replicates. The generator is seeded, so the
// same data and seed give the same intervals. A cell of one repeat contributes no variation, so
// with one repeat everywhere the interval has no width and is reported as none (ok = false).
//
// Run-to-run spread: the pooled within-cell standard deviation,
//   sqrt( sum_c sum_r (y_cr - mean_c)^2 / sum_c (n_c - 1) ),
// the typical distance between two runs of one configuration. An effect is within noise when
// its interval covers 0 or its size is below that spread.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace ablate::bench::experiments {

struct Interval {
  double low = 0, high = 0;
  bool ok = false;  // false: no interval (one repeat per cell, or no replicate computable)
  bool covers(double x) const { return ok && low <= x && x <= high; }
};

using Cells = std::vector<std::vector<double>>;  // per cell, its successful repeats
using Statistic = std::function<std::vector<double>(const std::vector<double>& cell_means)>;

std::vector<double> cell_means(const Cells& cells);

struct BootstrapOptions {
  int replicates = 2000;
  std::uint64_t seed = 1;
  double level = 0.95;
};

// One interval per figure of `statistic`; every cell must have at least one repeat (throws).
std::vector<Interval> bootstrap_intervals(const Cells& cells, const Statistic& statistic,
                                          const BootstrapOptions& options = {});

// The same, drawing over the cells in `order` (a permutation of their indices): callers whose
// cells come in an arbitrary order (the order the factors were named in) sort them by what they
// measure first, so that the intervals do not depend on it.
std::vector<Interval> bootstrap_intervals_ordered(const Cells& cells, const Statistic& statistic,
                                                  const std::vector<std::size_t>& order, const BootstrapOptions& options = {});

// The pooled within-cell standard deviation; 0 with no cell of two repeats.
double run_to_run_spread(const Cells& cells);

// The interval covers 0 (or there is none) or |value| is below the spread.
bool within_noise(double value, const Interval& interval, double spread);

}  // namespace ablate::bench::experiments
