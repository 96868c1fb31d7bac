// Runs the cells of a designed experiment (designed_experiment.h) in their randomised order and
// appends one record per run to the results file, resumably:
//   - each record carries a "design" member {key, cell: {KEY: level}, repeat, run}; a run whose
//     (key, cell, repeat) already has a completed (or diverged) record is skipped;
//   - a run that fails (flags that do not resolve together, a crash, an error) is appended as
//     {"design": ..., "status": "failed", "error": "..."}: it is shown in the tables and the
//     counts, never dropped; a rerun tries that cell's repeat again (the failed record stays);
//   - a run that other processes disturbed (its metrics.disturbance.disturbed: others used more
//     than --disturbed-above cores while it trained, bench/run/cpu_disturbance.h) is run again,
//     up to spec.rerun_disturbed times: each disturbed record stays in the file with
//     design.superseded true (left out of the analysis, counted); the last one, if still
//     disturbed, counts and is marked (design.disturbed true).
// Distributed (started by an MPI launcher as N > 1 ranks, after join_sweep_ranks): the runs are
// spread over the ranks as a sweep's are, by rank 0's work queue (graph/distributed/work_queue.h);
// each rank trains its runs (their re-runs too) in forked processes and sends the records to
// rank 0, which alone reads and appends the results file and prints; design.rank names the rank.
// Every rank returns the same totals.
// The runner is a parameter: `ablate ablate` trains each cell as `ablate run` with its flags in a
// child process (child_process_runner); the tests give a stand-in whose time is a known function
// of the factors.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "bench/experiments/designed_experiment.h"
#include "bench/run/flags.h"

namespace ablate::bench::experiments {

// One run of one cell: its record as a JSON line (an object with "status"); throws on failure.
// `serve` (may be empty) is to be called about every 50 ms while it works: in a distributed
// design rank 0 answers the other ranks from there.
using DesignRunner = std::function<std::string(const run::Flags& args, const std::function<void()>& serve)>;

struct DesignTotals {
  int runs = 0, skipped = 0, failed = 0;
  int rerun = 0;      // disturbed runs measured again
  int disturbed = 0;  // runs kept although disturbed (no re-run left)
};

// Whether a run's record says others disturbed it (metrics.disturbance.disturbed).
bool record_disturbed(const nlohmann::json& record);

// `print`: a line per run on stdout (rank 0's).
DesignTotals run_design(const DesignSpec& spec, const DesignPlan& plan, const std::string& out,
                        const DesignRunner& runner, bool print);

// Each run resolved as `ablate run` with the cell's flags would be, trained in its own process
// (as sweep does: validation capped on small data sets, --max-iterations); `verbose` shows its
// progress lines.
DesignRunner child_process_runner(const DesignSpec& spec, bool verbose);

}  // namespace ablate::bench::experiments
