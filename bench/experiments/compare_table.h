// The rows of `ablate compare`: what each framework's run measured, brought back from its
// child process as text, and the study's table printed from them (plain text for the
// terminal, Markdown for the report), with the study's published figures alongside.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bench/run/environment.h"
#include "bench/run/result_record.h"

namespace ablate::bench::experiments {

struct CompareRow {
  std::string framework;
  std::string state = "completed";  // completed | diverged | failed | not run
  std::string note;                 // why not run or failed; the divergence error
  std::string command;              // the equivalent `ablate run` command
  std::string length;               // "500 of 10000 iterations"
  double train_s = 0, test_s = 0;   // under the comparison's timing
  double accuracy = 0;
  bool reached = false;             // the target accuracy
  double time_to_target_s = 0;      // under the comparison's timing
  std::int64_t target_iteration = 0;
  std::int64_t iterations = 0, iterations_done = 0;
  std::int64_t peak_rss_bytes = 0;
  double cpu_util = 0;
  double uniform_train_s = 0, uniform_test_s = 0, framework_train_s = 0, framework_test_s = 0;
  // Every test of the run: (uniform training seconds before it, test accuracy), for the plots.
  std::vector<std::pair<double, double>> test_points;
  // The training loss over time: (uniform training seconds, the loss of that step), every point
  // of the run's curve (step 1 and every --curve-every-th step).
  std::vector<std::pair<double, double>> loss_points;
  // The same points as (iterations done, uniform training seconds): the speed within the run
  // (window_rates.h), which `--with-peers` and `--with-real` state beside their ratios.
  std::vector<std::pair<double, double>> progress_points;

  bool measured() const { return state == "completed" || state == "diverged"; }
};

// The measured part of a run's result as a row (state, figures).
CompareRow row_from_result(const run::RunResult& result);
// "key value" lines of the measured fields, and back (into a row whose plan is filled).
std::string to_text(const CompareRow& row);
void read_measurements(const std::string& text, CompareRow& row);

struct CompareSummary {
  std::string dataset, family;
  std::string budget;       // "quick", "full", "120 s", "--scale 0.05"
  std::string factor_note;  // how the factor was chosen
  double factor = 1;
  run::Timing timing = run::Timing::uniform;
  double target_accuracy = 0;
  double wall_s = 0;        // the whole comparison
};

std::string text_table(const CompareSummary& s, const std::vector<CompareRow>& rows);
std::string markdown_report(const CompareSummary& s, const std::vector<CompareRow>& rows, const run::Environment& env);

}  // namespace ablate::bench::experiments
