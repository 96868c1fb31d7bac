// The plan of `ablate compare`: one place per framework, each resolved by resolve_run_config
// exactly as `ablate run --framework F` with the comparison's shared flags would be, the
// common length factor (a given --scale, or --budget's choice from warm-ups, compare_budget.h)
// applied to every runnable framework alike, and each run in its own process
// (child_process.h) through run_configuration, its row brought back as text.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "bench/experiments/compare_budget.h"
#include "bench/experiments/compare_table.h"
#include "bench/run/flags.h"
#include "bench/run/run_config.h"

namespace ablate::bench::experiments {

// Test passes per run, evenly spaced, unless --curve-points says otherwise: every framework gets
// an accuracy curve of as many points, whether its recipe tests along the way or only at the end.
constexpr int kCompareCurvePoints = 8;

// The frameworks a comparison may name, in the study's order.
const std::vector<std::string>& compare_frameworks();
// A target each framework's default should pass on the data set, so time-to-accuracy compares.
double default_target(const std::string& dataset);

// The run flags compare passes to every framework's run as `ablate run` reads them: every run
// flag but those that name or shape one run (framework, preset, model, length, snapshots, MPI):
// the factors (--strategy, --backend, --threads, --precision, --passes, ...), the evaluation
// (--test-iterations, --test-batch, --seed, --timing), --no-random, and any run flag added later.
const std::vector<std::string>& shared_run_flags();

// One framework's place in the comparison.
struct ComparePlan {
  CompareRow row;
  bool runnable = false;    // false: row says why ("not run", "failed")
  run::Flags args;     // as `ablate run` would get them
  run::RunConfig unscaled;  // the default length
  run::RunConfig config;    // the length to run
};

// `compare` holds the comparison's flags; those every run shares (data, out, quiet and
// shared_run_flags()) go to the framework's run flags with the target accuracy.
ComparePlan plan_framework(const std::string& framework, const std::string& family, const run::Flags& compare,
                           double target);
// Shortens every runnable plan by `factor` (its configuration, command and length text).
void apply_factor(std::vector<ComparePlan>& plans, double factor);
// --budget: warms each runnable framework up in its own process (printing its speeds; a failed
// warm-up makes its plan a failed row), then chooses the factor that fits what is left of
// `budget_s` since `start`.
FactorChoice budget_factor(std::vector<ComparePlan>& plans, double budget_s, std::chrono::steady_clock::time_point start);
// Runs a runnable plan in its own process; a crash or an error is a failed row.
CompareRow run_plan(const ComparePlan& plan);

}  // namespace ablate::bench::experiments
