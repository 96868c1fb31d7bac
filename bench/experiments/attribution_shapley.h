// The Shapley account of a speed difference (`ablate compare --with-real --attribute`, the
// default method; attribution.h): the gap between ablate at its fastest (B: every factor at its
// fastest value, chosen alone; attribution_measure.h) and the real framework, split as
//   gap = T_B - T_real = (T_A - T_real) + sum_i phi_i
// where T_A is ablate with the framework's own factors (what ablate does not model: "left
// unexplained") and phi_i factor i's Shapley value of the change from A to B (shapley_values.h):
// every subset of the switched factors is measured (exact up to kExactShapleyFactors factors,
// sampled orders beyond), so no factor's share depends on an order and interactions are split
// evenly among their factors. Times are means over the interleaved rounds (training seconds of
// the comparison's steps at each round's images/s); every figure has a 95% bootstrap interval
// over the rounds (bootstrap_interval.h); shares (figure / gap) are given only when the gap is
// not within noise (its interval covers 0 or it is below the run-to-run spread). The largest
// two-factor interaction of the 2^k design (two_level_effects.h) is named with its interval.
//
// A subset whose switches do not resolve together (a conv lowering the switched backend refuses)
// applies them in the order of the factors' names, leaving out each that is refused, and says so:
// that configuration is then the same as another subset's and measured once.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "bench/experiments/attribution.h"
#include "bench/experiments/bootstrap_interval.h"
#include "bench/experiments/designed_experiment.h"

namespace ablate::bench::experiments {

struct ShapleyShare {
  std::string factor, from, to;
  double seconds = 0;  // phi_i
  Interval interval;
  double share = 0;    // phi_i / gap
  Interval share_interval;
  bool within_noise = true;
};

struct ShapleyAccount {
  std::string framework, dataset, real_title;
  std::int64_t steps = 0, batch = 0;
  int rounds = 0, warmup = 0, configurations = 0;
  double real_s = 0, own_s = 0, fastest_s = 0;   // T_real, T_A, T_B
  double left_s = 0, left_share = 0, gap_s = 0, spread = 0;
  Interval left_interval, left_share_interval, gap_interval;
  bool gap_within_noise = true;
  std::vector<ShapleyShare> factors;                           // switched, in the waterfall's order
  std::vector<std::pair<std::string, std::string>> not_switched;  // factor, why
  std::string interaction;                                      // "backend x conv lowering"; "" none
  double interaction_s = 0;
  Interval interaction_interval;
  bool interaction_within_noise = true;
  int orders = 0;                                               // sampled orders (0: exact)
  std::vector<std::pair<std::string, double>> other_real;       // other paths of the real framework
  std::vector<std::string> adjusted;                            // subsets with a switch left out
  std::vector<std::string> failed_samples;                      // "ablate's backend=onednn round 2: error"
  std::string problem;                                          // "" or why there is no account
};

ShapleyAccount attribute_shapley(const ComparePlan& plan, const CompareRow& row, const std::string& dataset,
                                 const AttributionOptions& options);

// The arithmetic, apart from the measuring: `plan` a --shapley plan over the switched factors
// (the factor keys and levels name them), `cell_measure` each plan cell's measurement, `seconds`
// per measurement its successful rounds (measurement 0 the real framework). Fills every figure
// of `a` but the labels.
void settle_shapley_account(ShapleyAccount& a, const DesignPlan& plan, const DesignSpec& spec,
                            const std::vector<std::size_t>& cell_measure, const Cells& seconds,
                            const BootstrapOptions& options);

std::string shapley_account_text(const ShapleyAccount& a);
std::string shapley_account_markdown(const ShapleyAccount& a);
// In the shape of `ablate ablate`'s ablate.json (design_table.h), for bench/report/design_plots.py.
nlohmann::ordered_json shapley_account_json(const ShapleyAccount& a);
// Writes DIR/attribution_FRAMEWORK.json and draws attribution_FRAMEWORK_time_*.png from it
// (design_plots.py with /usr/bin/python3); returns "" or why the plots were skipped.
std::string draw_shapley_account(const ShapleyAccount& a, const std::string& dir);

}  // namespace ablate::bench::experiments
