// The definition of `ablate ablate`, a designed experiment over named factors (any run flags) and
// their levels: which configurations (cells) run, how often, in what order, and how a run is
// recognised in the results file so that a rerun skips it.
//
// Cells:
//   - every factor two-level, no --fraction: the full 2^k factorial (factorial_design.h order);
//   - --fraction p: the tabulated 2^(k-p) design of resolution IV or more, letters A, B, ...
//     given to the factors in the order named (the last p are generated);
//   - a factor of more than two levels: every combination (ANOVA, factorial_anova.h);
//   - --shapley with more than kExactShapleyFactors two-level factors: the subsets that
//     `--orders M` seeded random orders visit (shapley_values.h), not a factorial.
// Run order: repeat after repeat, every cell once per repeat, each pass in its own seeded random
// order (randomised and interleaved: a drift of the machine's speed reaches every cell alike).
// A run's identity is (design key, cell, repeat); the design key holds the base flags, the
// factors and their levels, the design and --max-iterations, not the order of the factors named.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "bench/experiments/factorial_design.h"
#include "bench/experiments/sweep_grid.h"
#include "bench/run/flags.h"

namespace ablate::bench::experiments {

struct DesignSpec {
  std::map<std::string, std::string> base;  // run flags held fixed
  std::vector<SweepFactor> factors;         // --factor KEY=L1,L2,... in the order given
  int repeats = 3;
  int fraction = 0;                         // p of a 2^(k-p) design
  bool shapley = false;                     // from every factor's first level to its second
  int orders = 200;                         // sampled orders when Shapley is not exact
  std::uint64_t seed = 1;                   // run order, sampled orders, bootstrap
  std::int64_t max_iterations = 0;          // > 0: every run trains at most this many iterations
  int rerun_disturbed = 1;                  // a run others disturbed is run again up to this many times
};

enum class DesignKind { two_level, multi_level, shapley_orders };

struct DesignCell {
  std::vector<int> level;                     // per factor (order given), its level index
  std::map<std::string, std::string> values;  // KEY -> level
};

struct DesignPlan {
  DesignKind kind = DesignKind::two_level;
  TwoLevelDesign two_level;                   // kind two_level
  std::vector<std::vector<int>> orders;       // kind shapley_orders: over the canonical factors
  std::vector<int> canonical;                 // factor indices sorted by key (Shapley's indexing)
  std::vector<DesignCell> cells;
};

// Checks the spec (at least one factor; two levels each for --fraction and --shapley; a factor
// named twice or also a base flag) and lays out its cells; throws naming the bad input.
DesignPlan plan_design(const DesignSpec& spec);

// The run flags of one cell (a switch's level is on/off, as sweep's --vary).
run::Flags cell_args(const DesignSpec& spec, const DesignCell& cell);

struct PlannedDesignRun {
  std::size_t cell = 0;
  int repeat = 0;
};
// Every (cell, repeat), repeat by repeat, each pass shuffled with the spec's seed.
std::vector<PlannedDesignRun> design_run_order(const DesignSpec& spec, const DesignPlan& plan);

std::string design_key(const DesignSpec& spec);
// "KEY=V KEY=V" sorted by key: the cell as the results file names it.
std::string cell_text(const DesignCell& cell);
std::string design_run_identity(const std::string& key, const std::string& cell, int repeat);

// A mask over the canonical factors (bit i: canonical factor i at its second level) as a cell's
// level vector in the order given, and back.
std::vector<int> levels_of_mask(const DesignPlan& plan, std::uint64_t mask);
std::uint64_t mask_of_levels(const DesignPlan& plan, const std::vector<int>& level);
// Each cell's index by its mask (a --shapley plan: every mask its orders or its design visit).
std::map<std::uint64_t, std::size_t> cells_by_mask(const DesignPlan& plan);

}  // namespace ablate::bench::experiments
