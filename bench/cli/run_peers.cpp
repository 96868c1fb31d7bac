// `ablate compare`'s peers of one run, right after it: PyTorch trains the same model on the same
// data and recipe (--with-peers, peer_runner.h), the real framework the same steps from the same
// initial weights (--with-real, real_comparison.h), and one framework's speed difference is
// accounted for factor by factor (--attribute: Shapley shares, attribution_shapley.h, or the
// greedy waterfall, attribution.h). A plan that did not run is still set beside its real
// framework (or its absence), with why it did not run.
#include <cstdio>

#include "bench/cli/comparison.h"
#include "bench/experiments/peer_table.h"

namespace ablate::bench::cli {

void run_peers(const CompareRequest& request, const run::Flags& args, const experiments::ComparePlan& p, Comparison& c) {
  const experiments::CompareRow& row = c.rows.back();
  const experiments::RealOptions& real_opts = request.attribution_opts.real;
  if (!p.runnable) {
    if (!request.with_real) return;
    run::RunConfig named = p.unscaled;
    named.framework = p.row.framework;
    c.real.push_back(experiments::compare_with_real(named, row, real_opts));
    return;
  }
  if (request.with_peers) {
    std::printf("PyTorch yardstick for %s, %s thread(s), run by %s\n", p.row.framework.c_str(),
                args.get("peer-threads", "1,2").c_str(), request.peer_opts.python.c_str());
    c.peers.push_back(experiments::compare_with_peer(p.config, row, request.peer_opts));
    std::fputs(experiments::peer_text(c.peers.back()).c_str(), stdout);
  }
  if (request.with_real) {
    std::printf("the real framework beside %s\n", p.row.framework.c_str());
    std::fflush(stdout);
    c.real.push_back(experiments::compare_with_real(p.config, row, real_opts));
  }
  if (request.attribute && request.attribution_opts.method == "greedy") {
    c.waterfalls.push_back(experiments::attribute_greedy(p, row, request.dataset, request.attribution_opts));
    std::fputs(experiments::waterfall_text(c.waterfalls.back()).c_str(), stdout);
  } else if (request.attribute) {
    c.accounts.push_back(experiments::attribute_shapley(p, row, request.dataset, request.attribution_opts));
    std::fputs(experiments::shapley_account_text(c.accounts.back()).c_str(), stdout);
  }
}

}  // namespace ablate::bench::cli
