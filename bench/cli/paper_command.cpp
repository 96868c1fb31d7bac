// `ablate paper`: the study's experiment families (paper_families.h) by name, run through the
// sweep machinery (sweep_runner.h): resumable, one record per run in --out, each run in its
// own process. A run that fails (a model another framework's recipe cannot feed, in cross
// transfer) is a 'failed' row: a result of the family, so the command still succeeds.
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "bench/run/flags.h"
#include "bench/run/text_format.h"
#include "bench/run/wait_policy.h"
#include "bench/cli/commands.h"
#include "bench/experiments/paper_families.h"
#include "bench/experiments/sweep_runner.h"

namespace ablate::bench::cli {

namespace {

int paper_main(const run::Flags& args) {
  const std::string name = args.get("family");
  if (args.has("list") || name.empty()) {
    std::printf("The study's experiment families (ablate paper NAME --out FILE [--scale X]):\n");
    for (const auto& f : experiments::paper_families()) std::printf("  %-18s %s\n", f.name.c_str(), f.description.c_str());
    return name.empty() && !args.has("list") ? 1 : 0;
  }
  if (!args.has("out")) throw std::invalid_argument("ablate paper " + name + ": --out FILE is required (the results file)");
  run::check_wait_policy_flag(args);  // how threads wait
  experiments::PaperOptions o;
  o.dataset = args.get("dataset", "fashion-mnist");
  o.data_dir = args.get("data", "");
  o.scale = args.get_double("scale", 1);
  o.limit = static_cast<int>(args.get_int("limit", 0, 0));
  o.repeats = static_cast<int>(args.get_int("repeats", 1, 1));
  o.threads = args.get("threads", "");
  o.max_iterations = args.get_int("max-iterations", 0, 0);
  if (args.has("test-iterations")) o.test_iterations = std::to_string(args.get_int("test-iterations", 0, 0));
  if (args.has("frameworks")) {
    o.frameworks = run::split_list(args.get("frameworks"));
  }
  std::vector<experiments::SweepSpec> specs = experiments::plan_family(name, o);
  std::size_t runs = 0;
  for (const auto& s : specs) runs += experiments::expand(s).size();
  std::printf("ablate paper %s on %s, length x %g: %zu runs in %zu sweeps into %s\n", name.c_str(), o.dataset.c_str(),
              o.scale, runs, specs.size(), args.get("out").c_str());
  experiments::SweepTotals totals;
  experiments::run_sweeps(specs, args.get("out"), args.has("verbose"), totals);
  std::printf("paper %s done: %d run, %d skipped (already in %s), %d failed\n", name.c_str(), totals.runs,
              totals.skipped, args.get("out").c_str(), totals.failed);
  return 0;
}

}  // namespace

Command paper_command() {
  return {"paper",
          "the study's experiment families by name (ablate paper --list)",
          "Runs one of the study's experiment families (ablate paper --list) through the sweep\n"
          "machinery: usage ablate paper NAME --out FILE [--dataset D] [--scale X].",
          {
              {"family", "NAME", "the experiment family (see --list)", false, true},
              {"list", "", "name every experiment family and what it runs"},
              {"dataset", "NAME", "fashion-mnist (default), mnist, cifar10, synthetic"},
              {"data", "DIR", "directory of the data files"},
              {"scale", "X", "every run's length x X (default 1: the defaults' lengths)"},
              {"frameworks", "LIST", "comma-separated (default: caffe,torch,tensorflow,theano)"},
              {"limit", "N", "only the first N values of each varied factor (small variants)"},
              {"repeats", "N", "runs per point (default 1)"},
              {"max-iterations", "N", "every run at most N training iterations (quick checks; in sweep.note)"},
              {"threads", "N", "every run at this thread count unless the family varies it"},
              {"test-iterations", "N", "every run tests N batches per test pass (default: each preset's)"},
              {"out", "FILE", "the results file (required to run; read to resume)"},
              {"verbose", "", "the runs print their progress lines"},
              run::wait_policy_flag(),
          },
          paper_main};
}

}  // namespace ablate::bench::cli
