// Runs the points of a sweep (sweep_grid.h), shared by `ablate sweep` and `ablate paper`:
// each point resolved by resolve_run_config exactly as `ablate run` with those flags would,
// trained in its own forked process (child_process.h), its record appended to the results file
// with a "sweep" member {label, base, point, repeat[, note][, rank]}. Resumable: the points whose
// (base, point, repeat) already have a record in the file are skipped.
//
// Distributed: started by an MPI launcher with N > 1 processes (mpirun -np N, srun),
// the runs are spread over the ranks by a work queue on rank 0 (graph/distributed/work_queue.h);
// every run is one process on its rank (forked, outside the MPI job: it never joins MPI, and a
// sweep with --distributed is an error); rank 0 alone reads the results file, appends the
// record each rank sends back (sweep.rank names the rank) and prints progress. A build without
// MPI, or a process not started by a launcher, runs the sweep by itself as above. A point whose flags do not resolve, or whose run fails,
// is a 'failed' row; it writes no record, so a later rerun tries it again.
//
// Data sets smaller than a preset expects: a validation split (Theano 10,000, TF 5,000) that
// would leave fewer than 5/6 of the training images is capped at 1/6 of them, and the record
// says so in sweep.note (synthetic data has 6,000 training images).
#pragma once

#include <string>
#include <vector>

#include "bench/experiments/child_process.h"
#include "bench/run/results_reader.h"
#include "bench/run/run_configuration.h"
#include "bench/run/run_config.h"
#include "bench/experiments/validation_cap.h"  // capped_validation
#include "bench/experiments/sweep_grid.h"

namespace ablate::bench::experiments {

struct SweepRow {
  std::string label;
  SweepPoint point;
  std::string state;  // completed, diverged, failed, skipped (done before)
  std::string note;
  double accuracy = 0, train_s = 0;
};

struct SweepTotals {
  int runs = 0, skipped = 0, failed = 0;
};

// The identity of a run in a results file, from the record's "sweep" member ("" without one).
std::string run_identity(const nlohmann::json& record);
std::string run_identity(const SweepSpec& spec, const SweepPoint& point);

// Reads a results file to resume from: checks it can be appended to, reports damaged lines on
// stdout and removes a partial last line (a run cut short), so that run runs again. Shared with
// `ablate ablate` (design_runner.h).
run::ResultsFile read_to_resume(const std::string& out);

// Whether this sweep is spread over the ranks of an MPI job (initializes MPI when started by a
// launcher; throws when launched as several processes by a build without MPI).
bool join_sweep_ranks();
// Whether this process prints the sweep's lines (rank 0, or no MPI job).
bool sweep_prints();
// Throws when the runs of a sweep or design spread over MPI ranks would be --distributed
// themselves (in the base flags or a factor): each of them trains in one process on its rank.
void refuse_distributed_runs(const std::map<std::string, std::string>& base, const std::vector<SweepFactor>& factors);

// Reads `out` once (reporting damaged lines on stdout and removing a partial last line), then
// runs every spec's points not already there. `verbose`: the runs print their progress (rank
// 0's only when distributed). Collective when distributed: rank 0 returns every row, the other
// ranks none; every rank gets the same totals.
std::vector<SweepRow> run_sweeps(const std::vector<SweepSpec>& specs, const std::string& out, bool verbose,
                                 SweepTotals& totals);

// Trains `config` in a forked child process as one run of a sweep or a designed experiment:
// outside any MPI job (a distributed sweep's runs never join it) and ending with this process;
// a validation split too large for the data capped, the length cut to `max_iterations` (> 0),
// `note` saying what was changed. `annotate(record, note)` adds the caller's member to the
// record; the child returns `finish(outcome, note)`. `serve` runs about every 50 ms meanwhile.
ChildOutcome train_in_child(run::RunConfig config, std::int64_t max_iterations,
                            const std::function<void(nlohmann::ordered_json&, const std::string&)>& annotate,
                            const std::function<std::string(const run::RunOutcome&, const std::string&)>& finish,
                            const std::function<void()>& serve);

// --max-iterations: resolves the length on `train_count` images and cuts it to `max_iterations`
// (> 0), adding to `note` when it did.
void cap_length(run::RunConfig& config, std::int64_t train_count, std::int64_t max_iterations, std::string& note);

}  // namespace ablate::bench::experiments
