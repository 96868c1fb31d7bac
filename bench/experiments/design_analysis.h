// The analysis of a designed experiment (designed_experiment.h) from its records: per metric,
// each factor's main effect and each pair's interaction, and with --shapley each factor's
// Shapley value of the change from every factor's first level to its second; every figure with
// its 95% bootstrap interval over the repeats (bootstrap_interval.h), beside the run-to-run
// spread, and marked within noise when its interval covers 0 or it is below that spread.
//
//   two-level design (full or fractional): contrasts (two_level_effects.h), the fraction's
//     aliases named; a full one also gets ANOVA's share of variation and p (factorial_anova.h);
//   more than two levels: ANOVA; a factor's effect is its largest level mean minus its smallest,
//     an interaction's the largest |m_ab - m_a - m_b + m|; also within noise when p > 0.05;
//   Shapley: exact over the full 2^k design (k <= 8); beyond, over the sampled orders' subsets,
//     with each value's standard error. Computed over the factors sorted by name, so the order
//     in which the factors were named changes no value.
// A cell without a successful run leaves a gap: no effect is estimated, and the cell is named.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "bench/experiments/bootstrap_interval.h"
#include "bench/experiments/designed_experiment.h"

namespace ablate::bench::experiments {

struct DesignMetric {
  std::string name;   // time, images, memory, accuracy
  std::string title;  // "training time"
  std::string unit;   // "s"
  std::string field;  // "metrics.train_time_s"
  double scale = 1;   // record value * scale
};
// "time,memory" -> the metrics; throws naming an unknown one and the known ones.
std::vector<DesignMetric> design_metrics(const std::string& list);

struct FailedRun {
  std::string cell;
  int repeat = 0;
  std::string error;
  bool retried_ok = false;  // a later run of the same cell and repeat succeeded
};

struct DesignSamples {
  std::vector<Cells> values;     // [metric][cell]: the successful repeats' values
  std::vector<int> failed;       // per cell: repeats with no successful record
  std::vector<int> done;         // per cell: repeats with one
  std::vector<int> rerun;        // per cell: disturbed runs measured again (left out)
  std::vector<int> disturbed;    // per cell: counted runs that others disturbed (no re-run left)
  std::vector<FailedRun> failures;
};
DesignSamples collect_samples(const DesignSpec& spec, const DesignPlan& plan, const std::vector<DesignMetric>& metrics,
                              const std::vector<nlohmann::json>& records);

struct EffectRow {
  std::string name;    // "backend", "backend x strategy"
  std::string detail;  // "openblas -> onednn"; a fraction's aliases; ANOVA's extreme levels
  double value = 0;
  Interval interval;
  bool within_noise = true;
  double share = -1, p = -1;  // ANOVA's eta^2 and p; -1: none
};

struct ShapleyRow {
  std::string factor, from, to;
  double value = 0;
  Interval interval;
  double standard_error = -1;  // sampled orders only
  bool within_noise = true;
};

struct MetricAnalysis {
  DesignMetric metric;
  std::string design;                // "2^3 full factorial", "2^(6-2) resolution IV", "3 x 2 full factorial"
  double spread = 0;                 // run-to-run (pooled sd)
  std::vector<std::string> missing;  // cells without a successful run (then nothing estimated)
  std::vector<EffectRow> main, interactions;
  bool has_shapley = false;
  double shapley_from = 0, shapley_to = 0;  // v(every first level), v(every second level)
  std::vector<ShapleyRow> shapley;
  int orders = 0;                    // sampled orders (0: exact)
};

// The Shapley values (in the order the factors were given) of a --shapley plan (exact over its
// 2^k cells, or over its sampled orders) from its cells' values; and their standard errors over
// the orders (-1 each when exact).
std::vector<double> plan_shapley(const DesignPlan& plan, const std::vector<double>& cell_values);
std::vector<double> plan_shapley_errors(const DesignPlan& plan, const std::vector<double>& cell_values);

MetricAnalysis analyse_metric(const DesignSpec& spec, const DesignPlan& plan, const DesignMetric& metric,
                              const Cells& cells, const BootstrapOptions& options);

}  // namespace ablate::bench::experiments
