// The study's experiment families (reference/frameworks.md, "The study's experiment
// families") as named plans of sweeps (sweep_grid.h) that `ablate paper NAME` runs through the
// sweep machinery: defaults, cross_transfer, batch_sweep, lr_sweep, length_sweep, tuned,
// libraries_threads, resources, and strategies (the one the study could not run).
#pragma once

#include <string>
#include <vector>

#include "bench/experiments/sweep_grid.h"

namespace ablate::bench::experiments {

struct PaperFamily {
  std::string name, description;
};

const std::vector<PaperFamily>& paper_families();

struct PaperOptions {
  std::string dataset = "synthetic", data_dir;
  double scale = 1;                      // every run's length x scale
  std::vector<std::string> frameworks;   // default: the four
  int limit = 0;                         // > 0: only the first N values of each varied factor
  int repeats = 1;
  std::int64_t max_iterations = 0;       // > 0: every run at most N iterations (SweepSpec)
  std::string threads;                   // fixed for every run unless the family varies it; "" = preset's
  std::string test_iterations;           // fixed test batches per test pass; "" = preset's
};

// The sweeps of family `name` (throws naming an unknown family and listing the known ones).
std::vector<SweepSpec> plan_family(const std::string& name, const PaperOptions& options);

}  // namespace ablate::bench::experiments
