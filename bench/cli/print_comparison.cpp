// `ablate compare`'s results on stdout once every run is done: the study's table
// (compare_table.h), ablate against PyTorch per model (--with-peers), which runs other processes
// disturbed and how the threads waited, each framework beside its real one (--with-real), the
// attribution (--attribute), and the whole comparison's wall time.
#include <cstdio>

#include "bench/cli/comparison.h"
#include "bench/experiments/peer_table.h"
#include "bench/experiments/real_table.h"
#include "bench/run/wait_policy.h"

namespace ablate::bench::cli {

void print_comparison(const CompareRequest& request, const Comparison& c) {
  std::fputs(experiments::text_table(c.summary, c.rows).c_str(), stdout);
  if (request.with_peers) {
    std::printf("\nablate vs PyTorch (same data, recipe and steps; each side at its faster thread count):\n");
    for (const auto& p : c.peers) std::printf("%s\n", experiments::peer_ratio_line(p).c_str());
  }
  std::printf("%s\n", c.disturbances.summary().c_str());  // runs other processes disturbed
  std::printf("threads wait: %s (%s)\n", run::wait_policy_choice().policy.c_str(), run::wait_policy_choice().source.c_str());
  if (request.with_real) std::fputs(experiments::real_text(c.real).c_str(), stdout);
  for (const auto& w : c.waterfalls) std::fputs(experiments::waterfall_text(w).c_str(), stdout);
  for (const auto& a : c.accounts) std::fputs(experiments::shapley_account_text(a).c_str(), stdout);
  std::printf("whole comparison: %.1f s\n", c.summary.wall_s);
}

}  // namespace ablate::bench::cli
