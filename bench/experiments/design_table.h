// The tables of `ablate ablate` (design_analysis.h): per metric the design, the run-to-run
// spread, main effects, interactions and Shapley values, each with its 95% interval and a mark
// when within noise; the cells with their repeats and failed runs; every failed run with its
// error. As text for the terminal, Markdown for DIR/report.md, and JSON for DIR/ablate.json
// (which bench/report/design_plots.py draws).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "bench/experiments/design_analysis.h"

namespace ablate::bench::experiments {

struct DesignReport {
  const DesignSpec* spec = nullptr;
  const DesignPlan* plan = nullptr;
  const DesignSamples* samples = nullptr;
  std::vector<MetricAnalysis> metrics;
};

std::string design_text(const DesignReport& r);
std::string design_markdown(const DesignReport& r);
nlohmann::ordered_json design_json(const DesignReport& r);

// "+1.234 [+1.100, +1.370]" (no interval: "+1.234 [no interval]").
std::string value_with_interval(double value, const Interval& interval, const char* format = "%+.4g");

}  // namespace ablate::bench::experiments
