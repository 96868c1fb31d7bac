// `ablate compare --with-real --attribute`: the measurements behind the waterfall
// (attribution_waterfall.h) of one framework, on the shared, noisy machine:
// 1. Choice: ablate with the framework's own factors, and with each factor alone switched to
//    each of its choices (attribution_factors.h), measured in interleaved rounds; a factor's
//    fastest choice is the one with the highest median images/s, kept only if it beats the
//    framework's own.
// 2. Waterfall: the real framework (each of its paths), ablate with the framework's own
//    factors, and ablate after each chosen switch in turn (cumulatively), measured again in
//    interleaved rounds; each time is the comparison's steps at the median images/s.
// ablate's images/s: measure_warmup (compare_budget.h) in its own process, `seconds` of timed
// training after one untimed step. The real framework's: its runner on the comparison's data
// for as many steps as ablate's own factors do in `seconds` (at least 10), after 3 untimed ones.
#pragma once

#include <string>

#include "bench/experiments/attribution_waterfall.h"
#include "bench/experiments/compare_plan.h"
#include "bench/experiments/real_comparison.h"
#include "bench/run/flags.h"

namespace ablate::bench::experiments {

struct AttributionOptions {
  int rounds = 3;
  double seconds = 2;  // timed training of each ablate measurement
  RealOptions real;
};
// --rounds N, --attribute-seconds X (and real_options); throws naming a bad value.
AttributionOptions attribution_options(const run::Flags& args);

// The waterfall of `plan`'s framework, whose row (measured) gives the comparison's steps.
Waterfall attribute(const ComparePlan& plan, const CompareRow& row, const std::string& dataset,
                    const AttributionOptions& options);

}  // namespace ablate::bench::experiments
