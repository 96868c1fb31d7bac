// One `ablate compare` (one seed) as a recipe of named steps, each in its own file:
//   read_compare_request  every flag checked before anything runs        (read_compare_request.cpp)
//   plan_comparison       each framework's run, the length factor, printed (plan_comparison.cpp)
//   run_comparison        the runs one after another                       (run_comparison.cpp)
//   run_peers             beside each run: PyTorch, the real framework,
//                         the attribution                                  (run_peers.cpp)
//   print_comparison      the table and the peers' lines on stdout          (print_comparison.cpp)
//   write_compare_report  --report DIR: report.md, its plots, index.html    (write_compare_report.cpp)
//   comparison_status     the exit status: 3 when a framework run failed    (comparison_status.cpp)
// compare_command.cpp reads them in that order.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "bench/experiments/attribution.h"
#include "bench/experiments/attribution_shapley.h"
#include "bench/experiments/compare_plan.h"
#include "bench/experiments/compare_table.h"
#include "bench/experiments/peer_runner.h"
#include "bench/experiments/real_comparison.h"
#include "bench/run/disturbance_log.h"
#include "bench/run/flags.h"

namespace ablate::bench::cli {

// The comparison's flags, checked: a bad one fails here, before any run.
struct CompareRequest {
  std::string dataset, family;
  std::vector<std::string> frameworks;       // known, each once, in the order to run
  double target_accuracy = 0;                // in [0, 1]
  run::Timing timing = run::Timing::uniform;
  std::string budget;                        // quick, full or seconds
  double budget_s = 0;                       // 0 with --budget full
  std::string report_dir;                    // --report DIR (created), or empty
  double disturbed_above = 0;                // --disturbed-above
  double wait_quiet = 0;                     // --wait-quiet, 0: no wait
  bool with_peers = false, with_real = false, attribute = false;
  experiments::PeerOptions peer_opts;
  experiments::AttributionOptions attribution_opts;
};

// What the comparison found, filled step by step.
struct Comparison {
  explicit Comparison(double disturbed_above) : disturbances(disturbed_above) {}
  experiments::CompareSummary summary;
  std::vector<experiments::ComparePlan> plans;
  std::vector<experiments::CompareRow> rows;                 // one per plan, in order
  std::vector<experiments::PeerComparison> peers;            // --with-peers
  std::vector<experiments::RealComparison> real;             // --with-real
  std::vector<experiments::Waterfall> waterfalls;            // --attribute-method greedy
  std::vector<experiments::ShapleyAccount> accounts;         // --attribute (shapley)
  run::DisturbanceLog disturbances;                          // the forked runs' records follow it
  std::unique_ptr<experiments::TempDir> initial_dir;         // --with-real: each run's initial weights
};

CompareRequest read_compare_request(const run::Flags& args);
// The plans and the length factor (--scale, or a budget's warm-ups since `start`), printed.
Comparison plan_comparison(const CompareRequest& request, const run::Flags& args,
                           std::chrono::steady_clock::time_point start);
void run_comparison(const CompareRequest& request, const run::Flags& args, Comparison& c);
// Beside plan `p`'s row (the last of c.rows): the PyTorch yardstick, the real framework, the
// attribution, as the request asks; a plan that did not run is set beside its real framework only.
void run_peers(const CompareRequest& request, const run::Flags& args, const experiments::ComparePlan& p, Comparison& c);
void print_comparison(const CompareRequest& request, const Comparison& c);
void write_compare_report(const CompareRequest& request, const Comparison& c);
// DIR/report.md and DIR/index.html, the same report as one self-contained page (markdown_html.h),
// each whole (two runs at once in one folder leave one report, not a mix).
void write_report(const std::string& dir, const std::string& title, const std::string& markdown);
int comparison_status(const std::vector<experiments::CompareRow>& rows);

}  // namespace ablate::bench::cli
