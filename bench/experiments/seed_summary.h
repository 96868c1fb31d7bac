// `ablate compare --seeds LIST` (final accuracies over seeds): the comparison runs once
// per seed, and this gathers the final test accuracies of every side, seed by seed, into one
// table: ablate's row of each framework and, with --with-real, each real framework's path, the
// difference in points per seed, its mean and the largest single seed's.
#pragma once

#include <string>
#include <vector>

#include "bench/experiments/compare_table.h"
#include "bench/experiments/real_comparison.h"

namespace ablate::bench::experiments {

// What one seed's comparison measured.
struct SeedOutcome {
  std::int64_t seed = 0;
  std::vector<CompareRow> rows;
  std::vector<RealComparison> real;
};

// --seeds LIST: distinct non-negative integers; throws naming the input.
std::vector<std::int64_t> parse_seeds(const std::string& list);

// One line per side seen in any seed: the framework, the side ("ablate", "TensorFlow 2.21.0
// (onednn)"), its accuracy per seed (NaN where that seed has none: not run, failed) and, for a
// real side, ablate's accuracy minus its own in points per seed.
struct SeedLine {
  std::string framework, side;
  bool real = false;
  std::vector<double> accuracy, points;
  double mean_accuracy() const;  // over the seeds that have one; NaN if none
  double mean_points() const;
  double largest_points() const;  // the single seed farthest from 0, signed
};
std::vector<SeedLine> seed_lines(const std::vector<SeedOutcome>& outcomes);

std::string seeds_text(const std::vector<SeedOutcome>& outcomes);
std::string seeds_markdown(const std::vector<SeedOutcome>& outcomes);

}  // namespace ablate::bench::experiments
