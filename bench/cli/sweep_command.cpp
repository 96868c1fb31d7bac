// `ablate sweep`: a grid over any run flags (--vary KEY=V1,V2,... repeatable) with repeats,
// every point run as `ablate run` with those flags in its own process, one record each appended
// to --out; resumable; spread over the ranks when started by mpirun or srun (sweep_runner.h).
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "bench/cli/commands.h"
#include "bench/run/run_config.h"
#include "bench/run/run_flags.h"
#include "bench/run/wait_policy.h"
#include "bench/experiments/sweep_runner.h"

namespace ablate::bench::cli {

namespace {

int sweep_main(const run::Flags& args) {
  if (!args.has("out")) throw std::invalid_argument("ablate sweep: --out FILE is required (the results file, also read to resume)");
  experiments::SweepSpec spec;
  spec.repeats = static_cast<int>(args.get_int("repeats", 1, 1));
  for (const auto& v : args.all("vary")) spec.factors.push_back(experiments::parse_vary(v));
  spec.base = args.values();
  spec.max_iterations = args.get_int("max-iterations", 0, 0);
  for (const char* k : {"vary", "out", "quiet", "repeats", "verbose", "max-iterations"}) spec.base.erase(k);
  run::check_wait_policy_flag(args);  // one wait policy for the whole sweep (its runs are forks)
  spec.base.erase("wait-policy");
  experiments::check_spec(spec);
  run::resolve_run_config(experiments::point_args(spec, experiments::SweepPoint{}));  // a bad base flag fails now, once
  const std::string out = args.get("out");
  experiments::join_sweep_ranks();
  if (experiments::sweep_prints())
    std::printf("ablate sweep: %zu points x %d repeats into %s\n", experiments::expand(spec).size() / spec.repeats, spec.repeats,
                out.c_str());
  experiments::SweepTotals totals;
  experiments::run_sweeps({spec}, out, args.has("verbose"), totals);
  if (experiments::sweep_prints())
    std::printf("sweep done: %d run, %d skipped (already in %s), %d failed\n", totals.runs, totals.skipped,
                out.c_str(), totals.failed);
  if (totals.failed > 0) {
    if (experiments::sweep_prints()) std::fprintf(stderr, "error: %d runs of the sweep failed (see above)\n", totals.failed);
    return 3;
  }
  return 0;
}

}  // namespace

Command sweep_command() {
  std::vector<run::FlagSpec> options = run::run_flags();
  options.push_back({"vary", "KEY=V1,V2,...", "a run flag and its values (repeatable; the grid is their product)", true});
  options.push_back({"repeats", "N", "runs per point (default 1; same seed: the spread is the timing's)"});
  options.push_back({"max-iterations", "N", "train every run at most N iterations (quick checks; recorded in sweep.note)"});
  options.push_back({"verbose", "", "the runs print their progress lines"});
  options.push_back(run::wait_policy_flag());
  return {"sweep", "a resumable grid over any run flags (--vary KEY=V1,V2), with repeats",
          "Runs the grid (cartesian product) of the --vary factors over a base configuration (the run\n"
          "flags), each point in its own process, appending one record per run to --out (required).\n"
          "Resumable: runs already in --out are skipped. Started by an MPI launcher (mpirun -np N,\n"
          "srun), the runs are spread over the N ranks and rank 0 writes --out.",
          options, sweep_main};
}

}  // namespace ablate::bench::cli
