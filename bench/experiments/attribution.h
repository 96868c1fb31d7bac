// `ablate compare --with-real --attribute`: the account of one framework's speed difference from
// the real framework it reproduces. Two methods (--attribute-method):
//   shapley (the default, attribution_shapley.h): each factor's Shapley share of the gap between
//     ablate at its fastest and the real framework, with 95% intervals over the rounds, the
//     largest interaction, and the gap said to be within noise when it is;
//   greedy (the old account, attribution_waterfall.h): the factors switched one after another in
//     a fixed order, each keeping those before it; a factor's share depends on that order and an
//     interaction is credited to whichever factor comes later. Kept for comparison.
// Both first choose each factor's fastest value, each factor alone switched from the framework's
// own (attribution_measure.h: choose_fastest), and time every configuration and the real
// framework in interleaved rounds, both sides after the same untimed warm-up steps
// (--attribute-warmup, default kUntimedWarmupSteps). ablate's images/s: measure_warmup
// (compare_budget.h) in its own process, `seconds` of timed training. The real framework's: its
// runner on the comparison's data for as many steps as ablate's own factors do in `seconds`
// (at least 10).
#pragma once

#include <string>
#include <vector>

#include "bench/experiments/attribution_measure.h"
#include "bench/experiments/attribution_waterfall.h"
#include "bench/experiments/compare_budget.h"
#include "bench/experiments/compare_plan.h"
#include "bench/experiments/real_comparison.h"
#include "bench/experiments/real_peers.h"
#include "bench/experiments/sample_median.h"
#include "bench/run/flags.h"

namespace ablate::bench::experiments {

struct AttributionOptions {
  int rounds = 3;
  double seconds = 2;                   // timed training of each ablate measurement
  int warmup = kUntimedWarmupSteps;     // untimed steps before each measurement, both sides
  std::string method = "shapley";       // or "greedy"
  std::vector<FactorRequest> factors;   // --attribute-factors, in its order (empty: all, to be chosen)
  RealOptions real;
};
// --rounds N, --attribute-seconds X, --attribute-warmup N, --attribute-method M,
// --attribute-factors LIST (and real_options); throws naming a bad value.
AttributionOptions attribution_options(const run::Flags& args);

// The framework's real peer when it stands beside it, is installed and ablate's row was
// measured; otherwise null with `problem` saying why.
const RealPeer* account_peer(const run::RunConfig& base, const CompareRow& row, const AttributionOptions& options,
                             std::string& problem);

// What both accounts start from: the real peer and each factor's fastest value, with ablate's own
// factors measured; null peer (and `problem` set) when there is no account to give.
struct AccountStart {
  const RealPeer* peer = nullptr;
  FactorChoices choices;
  Median own;  // ablate with the framework's own factors, images/s
};
AccountStart start_account(const ComparePlan& plan, const CompareRow& row, const AttributionOptions& options,
                           std::string& problem);

// The greedy waterfall of `plan`'s framework, whose row (measured) gives the comparison's steps.
Waterfall attribute_greedy(const ComparePlan& plan, const CompareRow& row, const std::string& dataset,
                           const AttributionOptions& options);

}  // namespace ablate::bench::experiments
