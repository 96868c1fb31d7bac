// `ablate compare`'s third step: the planned runs one after another, each in its own process
// (experiments::run_plan), after an optional wait for a quiet machine, with what other processes
// took meanwhile logged; beside each run its peers (run_peers.cpp). A plan that cannot run is a
// row that says why. With --with-real each run first writes its initial weights, from which the
// real framework starts (the same steps and initial weights; each side its own random draws).
#include <cstdio>

#include "bench/cli/comparison.h"
#include "bench/run/cpu_disturbance.h"

namespace ablate::bench::cli {

void run_comparison(const CompareRequest& request, const run::Flags& args, Comparison& c) {
  if (request.with_real) c.initial_dir = std::make_unique<experiments::TempDir>("ablate-initial");
  std::size_t index = 0;
  for (experiments::ComparePlan& p : c.plans) {
    ++index;
    if (c.initial_dir && p.runnable) p.config.snapshot_initial = c.initial_dir->path() + "/" + p.row.framework + ".ckpt";
    if (!p.runnable) {
      c.rows.push_back(p.row);
      run_peers(request, args, p, c);
      continue;
    }
    std::printf("\n[%zu/%zu] %s\n", index, c.plans.size(), p.row.command.c_str());
    if (request.wait_quiet > 0)
      std::printf("%s\n", run::quiet_wait_text(run::wait_for_quiet(request.wait_quiet, run::disturbed_above()),
                                               request.wait_quiet).c_str());
    c.rows.push_back(run::measured_with(c.disturbances, p.row.framework, [&] { return experiments::run_plan(p); }));
    run_peers(request, args, p, c);
  }
}

}  // namespace ablate::bench::cli
