// `ablate compare`: the study's first experiment. Trains the four frameworks with their
// default recipes, one after another, each in its own process and each resolved exactly as
// `ablate run --framework F` would (experiments/compare_plan.h), then prints the study's
// table: training time, testing time, accuracy, time to a target accuracy, peak RSS and mean
// CPU per framework, next to the study's published figures. `--budget quick` shortens every
// length by one common factor (compare_budget.h); `--budget full` runs the defaults as they are.
// Every run flag that does not name one run is passed to every framework (compare_plan.h).
// `--with-real` sets each framework beside its real one (real_comparison.h), `--attribute`
// accounts for one framework's speed difference factor by factor (Shapley shares with intervals,
// attribution_shapley.h; or the greedy waterfall, attribution.h), and
// `--report DIR` writes report.md, its PNG plots (compare_plots.h) and index.html, the same
// report as one self-contained page (markdown_html.h). One comparison's steps (read the flags,
// plan, run, peers, report, status) are each in a file of their own: comparison.h lists them.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "bench/cli/commands.h"
#include "bench/cli/comparison.h"
#include "bench/experiments/compare_plan.h"
#include "bench/experiments/seed_summary.h"
#include "bench/run/cpu_disturbance.h"
#include "bench/run/run_flags.h"
#include "bench/run/wait_policy.h"

namespace ablate::bench::cli {

namespace {

std::vector<run::FlagSpec> compare_options() {
  std::vector<run::FlagSpec> options = {
      {"dataset", "NAME", "fashion-mnist (default), mnist, cifar10, synthetic, synthetic-cifar10"},
      {"data", "DIR", "directory of the data files"},
      {"frameworks", "LIST", "comma-separated, in order (default: caffe,torch,tensorflow,theano)"},
      {"budget", "quick|full|SECONDS", "quick (default): one length factor for all, about 8 min in all; "
                                       "full: the defaults"},
      {"scale", "X", "every framework's length x X, instead of the budget's factor"},
      {"target-accuracy", "X", "the accuracy for time-to-accuracy, for every framework (default: by data set)"},
      {"timing", "uniform|framework", "which times the table shows (both are in the records)"},
      {"backend", "NAME", "every framework on this backend (default: each preset's)"},
      {"threads", "N", "every framework at this thread count, or 'all' (default: each preset's)"},
      {"seed", "N", "seed of every run"},
      {"seeds", "LIST", "the comparison once per seed (e.g. 1,2,3), then every side's final accuracy per seed, "
                        "the mean and the difference in points (with --report DIR: DIR/seed-N/ and DIR/report.md)"},
      {"out", "FILE", "append each run's result record (one JSON line) to FILE"},
      {"report", "DIR", "write the table as DIR/report.md"},
      {"quiet", "", "no progress lines from the runs"},
      {"with-peers", "", "after each run, PyTorch (/usr/bin/python3, python3-torch) trains the same model on the same "
                         "data and recipe; prints images/s, accuracy, peak RSS and the ratio per model"},
      {"peer-threads", "LIST", "PyTorch's thread counts with --with-peers (default 1,2; the faster one is compared)"},
      {"peer-python", "PYTHON", "the interpreter that runs PyTorch with --with-peers (default /usr/bin/python3, Debian's "
                                "torch 1.13; PyTorch 2.x: $ABLATE_PEERS_DIR/pytorch/bin/python)"},
      {"peer-script", "FILE", "the PyTorch script (default: the source tree's bench/peers/pytorch_train.py)"},
      {"peer-as-installed", "", "run PyTorch as installed (default: its best found setting, OPENBLAS_NUM_THREADS=1 "
                                "and glibc malloc kept)"},
      run::wait_policy_flag(),
      run::disturbed_above_flag(),
      run::wait_quiet_flag(),
      {"with-real", "", "after each run, the real framework (TensorFlow on its Eigen and oneDNN paths, Theano; PyTorch "
                        "2.x for Caffe and Torch7) trains the same model, data, recipe and steps; and a loss-curve check "
                        "from ablate's initial weights (scripts/setup-peers.sh installs them)"},
      {"peers-dir", "DIR", "the real frameworks' environments (default: $ABLATE_PEERS_DIR, else the source tree's .peers)"},
      {"curve-steps", "N", "--with-real: steps of the loss-curve check (default 100; 0: none)"},
      {"real-paths", "LIST", "--with-real: TensorFlow's paths to run, eigen,onednn (default: both); the first is the account's reference"},
      {"real-rounds", "N", "--with-real: also time each real path and ablate in N interleaved rounds (each side in a "
                           "process of its own): the mean of the rounds' ratios with its 95% interval (default 0: none)"},
      {"real-seconds", "X", "--with-real --real-rounds: timed training seconds of each side in a round (default 3)"},
      {"attribute", "", "with --with-real and one framework: the account of the speed difference, each factor's "
                        "Shapley share of the gap with 95% intervals (a table and a waterfall chart)"},
      {"attribute-method", "M", "--attribute: shapley (default: every subset of the switches measured) or greedy "
                                "(the old one-at-a-time waterfall, whose shares depend on the factors' order)"},
      {"attribute-warmup", "N", "--attribute: untimed warm-up steps before each measurement, ablate and the real "
                                "framework alike (default 3)"},
      {"attribute-factors", "LIST", "--attribute: only these factors, in this order (names or flags: strategy,backend,"
                                    "conv-lowering,...; NAME=VALUE switches it to VALUE instead of its fastest; default: every one)"},
      {"rounds", "N", "--attribute: interleaved rounds; the intervals come from them (default 3)"},
      {"attribute-seconds", "X", "--attribute: timed training of each ablate measurement (default 2)"},
  };
  // Every run flag that does not name one run, for every framework alike (compare_plan.h).
  for (const std::string& name : experiments::shared_run_flags()) {
    if (std::any_of(options.begin(), options.end(), [&](const run::FlagSpec& f) { return f.name == name; })) continue;
    run::FlagSpec f = *run::find_run_flag(name);
    f.help = "every framework: " + f.help;
    options.push_back(f);
  }
  return options;
}

// One comparison (one seed), step by step (comparison.h); `outcome`, when given, receives its
// rows and real comparisons.
int compare_once(const run::Flags& args, experiments::SeedOutcome* outcome) {
  const auto start = std::chrono::steady_clock::now();
  const CompareRequest request = read_compare_request(args);
  Comparison c = plan_comparison(request, args, start);
  run_comparison(request, args, c);
  c.summary.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  print_comparison(request, c);
  if (!request.report_dir.empty()) write_compare_report(request, c);
  if (args.has("out")) std::printf("records appended to %s\n", args.get("out").c_str());
  if (outcome) {
    outcome->rows = c.rows;
    outcome->real = c.real;
  }
  return comparison_status(c.rows);
}

// --seeds LIST: the comparison once per seed (each with --report DIR/seed-N), then the final
// accuracies of every side over the seeds (seed_summary.h), in DIR/report.md too.
int compare_main(const run::Flags& args) {
  if (!args.has("seeds")) return compare_once(args, nullptr);
  if (args.has("seed")) throw std::invalid_argument("--seed " + args.get("seed") + " with --seeds " + args.get("seeds") + ": give one of them");
  const std::vector<std::int64_t> seeds = experiments::parse_seeds(args.get("seeds"));
  const std::string report_dir = args.get("report", "");
  std::vector<experiments::SeedOutcome> outcomes;
  int status = 0;
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    run::Flags one = args;
    one.erase("seeds");
    one.set("seed", std::to_string(seeds[i]));
    if (!report_dir.empty()) one.set("report", report_dir + "/seed-" + std::to_string(seeds[i]));
    std::printf("%s=== seed %lld (%zu of %zu)\n", i ? "\n" : "", static_cast<long long>(seeds[i]), i + 1, seeds.size());
    std::fflush(stdout);
    experiments::SeedOutcome o;
    o.seed = seeds[i];
    status = std::max(status, compare_once(one, &o));
    outcomes.push_back(std::move(o));
  }
  std::fputs(experiments::seeds_text(outcomes).c_str(), stdout);
  if (!report_dir.empty()) {
    std::ostringstream out;
    out << "# ablate compare over seeds\n\n" << experiments::seeds_markdown(outcomes);
    for (const auto& o : outcomes) out << "\n- [seed " << o.seed << "](seed-" << o.seed << "/report.md)";
    out << "\n";
    write_report(report_dir, "ablate compare over seeds", out.str());
  }
  return status;
}

}  // namespace

Command compare_command() {
  return {"compare", "train the four frameworks' defaults one after another; the study's table",
          "Trains the four frameworks with their default recipes one after another, each in its own\n"
          "process, and prints the study's table next to the study's published figures.",
          compare_options(), compare_main};
}

}  // namespace ablate::bench::cli
