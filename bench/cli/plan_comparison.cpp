// `ablate compare`'s second step: each framework's run resolved as `ablate run --framework F`
// would resolve it (experiments/compare_plan.h), then one length factor for all of them: given
// by --scale, the defaults with --budget full, or chosen from each framework's warm-up speed to
// fit the budget (experiments/compare_budget.h). Prints the plan before anything trains.
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "bench/cli/comparison.h"
#include "bench/run/text_format.h"

namespace ablate::bench::cli {

Comparison plan_comparison(const CompareRequest& request, const run::Flags& args,
                           std::chrono::steady_clock::time_point start) {
  Comparison c(request.disturbed_above);
  experiments::CompareSummary& summary = c.summary;
  summary.dataset = request.dataset;
  summary.family = request.family;
  summary.target_accuracy = request.target_accuracy;
  summary.timing = request.timing;
  for (const auto& f : request.frameworks)
    c.plans.push_back(experiments::plan_framework(f, request.family, args, request.target_accuracy));

  if (args.has("scale")) {
    summary.factor = args.get_double("scale", 1);
    if (!(summary.factor > 0)) throw std::invalid_argument("--scale " + args.get("scale") + ": expected a positive factor");
    summary.budget = "--scale " + run::number(summary.factor);
    summary.factor_note = "given";
  } else if (request.budget == "full") {
    summary.budget = "budget full";
    summary.factor_note = "the defaults as they are";
  } else {
    summary.budget = request.budget == "quick" ? "budget quick (" + run::number(request.budget_s) + " s)"
                                               : "budget " + run::number(request.budget_s) + " s";
    experiments::FactorChoice choice = experiments::budget_factor(c.plans, request.budget_s, start);
    summary.factor = choice.factor;
    summary.factor_note = (choice.fits ? "estimated " : "the shortest lengths, still over budget: estimated ") +
                          run::number(std::round(choice.estimate_s)) + " s of runs from each framework's warm-up speed";
  }
  experiments::apply_factor(c.plans, summary.factor);

  std::printf("ablate compare on %s, %s: length factor %s for every framework\n", request.dataset.c_str(),
              summary.budget.c_str(), run::number(summary.factor).c_str());
  for (const auto& p : c.plans)
    std::printf("  %-10s %s\n", p.row.framework.c_str(),
                p.runnable ? (p.row.length + "   (" + p.row.command + ")").c_str() : (p.row.state + ": " + p.row.note).c_str());
  std::fflush(stdout);
  return c;
}

}  // namespace ablate::bench::cli
