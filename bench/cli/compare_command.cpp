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
// report as one self-contained page (markdown_html.h).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "bench/cli/commands.h"
#include "bench/experiments/attribution.h"
#include "bench/experiments/attribution_shapley.h"
#include "bench/experiments/compare_plan.h"
#include "bench/experiments/compare_plots.h"
#include "bench/experiments/html_page.h"
#include "bench/experiments/markdown_html.h"
#include "bench/experiments/plot_script.h"
#include "bench/experiments/real_table.h"
#include "bench/experiments/seed_summary.h"
#include "bench/experiments/peer_process.h"
#include "bench/experiments/peer_runner.h"
#include "bench/experiments/peer_table.h"
#include "bench/run/disturbance_log.h"
#include "bench/run/environment.h"
#include "bench/run/wait_policy.h"
#include "bench/run/run_config.h"
#include "bench/run/run_flags.h"
#include "bench/run/text_file.h"
#include "bench/run/text_format.h"
#include "datasets/dataset_registry.h"

namespace ablate::bench::cli {

namespace {

constexpr double kQuickBudgetS = 480;  // about 8 minutes on the 2-core machine

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
      {"attribute", "", "with --with-real and one framework: the account of the speed difference, each factor's "
                        "Shapley share of the gap with 95% intervals (a table and a waterfall chart)"},
      {"attribute-method", "M", "--attribute: shapley (default: every subset of the switches measured) or greedy "
                                "(the old one-at-a-time waterfall, whose shares depend on the factors' order)"},
      {"attribute-warmup", "N", "--attribute: untimed warm-up steps before each measurement, ablate and the real "
                                "framework alike (default 3)"},
      {"attribute-factors", "LIST", "--attribute: only these factors (names or flags: strategy,backend,conv-lowering,...; "
                                    "default: every one)"},
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

// A malformed number in a shared run flag fails before any run, not in every row.
void check_shared_numbers(const run::Flags& args) {
  for (const std::string& name : experiments::shared_run_flags()) {
    const run::FlagSpec* f = run::find_run_flag(name);
    if (!args.has(name) || !f) continue;
    if (f->metavar == "N" && args.get(name) != "all") run::parse_int(args.get(name), "--" + name);
    if (f->metavar == "X") run::parse_double(args.get(name), "--" + name);
  }
}

// DIR/report.md and DIR/index.html, the same report as one self-contained page (markdown_html.h),
// each whole (two runs at once in one folder leave one report, not a mix).
void write_report(const std::string& dir, const std::string& title, const std::string& markdown) {
  const std::string md = (std::filesystem::path(dir) / "report.md").string();
  const std::string page = (std::filesystem::path(dir) / "index.html").string();
  run::write_text_file(md, markdown, "report");
  run::write_text_file(page, experiments::html_page(title, experiments::markdown_html(markdown, dir)), "report");
  std::printf("report written to %s and %s\n", md.c_str(), page.c_str());
}

// One comparison (one seed); `outcome`, when given, receives its rows and real comparisons.
int compare_once(const run::Flags& args, experiments::SeedOutcome* outcome) {
  const auto t0 = std::chrono::steady_clock::now();
  run::check_wait_policy_flag(args);  // how threads wait, disturbed runs, waiting for quiet
  run::DisturbanceLog disturbances(run::read_disturbed_above(args));  // the forked runs' records follow it
  const double wait_quiet = run::read_wait_quiet(args);
  const std::string dataset = args.get("dataset", "fashion-mnist");
  const std::string family = datasets::dataset_family(dataset, args.get("data", ""));  // throws naming an unknown data set
  std::vector<std::string> frameworks = run::split_list(args.get("frameworks", "caffe,torch,tensorflow,theano"));
  if (frameworks.empty()) throw std::invalid_argument("--frameworks '': expected some of caffe, torch, tensorflow, theano");
  for (std::size_t i = 0; i < frameworks.size(); ++i) {
    const auto& known = experiments::compare_frameworks();
    if (std::find(known.begin(), known.end(), frameworks[i]) == known.end())
      throw std::invalid_argument("--frameworks " + args.get("frameworks") + ": '" + frameworks[i] +
                                  "' is not one of caffe, torch, tensorflow, theano");
    if (std::find(frameworks.begin(), frameworks.begin() + static_cast<long>(i), frameworks[i]) != frameworks.begin() + static_cast<long>(i))
      throw std::invalid_argument("--frameworks " + args.get("frameworks") + ": '" + frameworks[i] + "' is named twice");
  }
  experiments::CompareSummary summary;
  summary.dataset = dataset;
  summary.family = family;
  summary.target_accuracy = args.has("target-accuracy") ? args.get_double("target-accuracy", 0) : experiments::default_target(dataset);
  if (!(summary.target_accuracy >= 0 && summary.target_accuracy <= 1))
    throw std::invalid_argument("--target-accuracy " + args.get("target-accuracy") + ": expected an accuracy in [0, 1]");
  summary.timing = run::parse_timing(args.get("timing", "uniform"), "--timing");
  args.get_int("seed", 1, 0);  // a malformed seed or thread count fails here, not in every row
  if (args.has("threads")) run::parse_thread_count(args.get("threads"), "--threads");
  check_shared_numbers(args);
  const std::string budget = args.get("budget", "quick");
  double budget_s = 0;
  if (budget == "quick") budget_s = kQuickBudgetS;
  else if (budget != "full") {
    budget_s = run::parse_double(budget, "--budget");
    if (budget_s <= 0) throw std::invalid_argument("--budget " + budget + ": expected quick, full or a positive number of seconds");
  }
  if (args.has("out")) run::check_writable(args.get("out"));
  std::string report_dir = args.get("report", "");
  if (!report_dir.empty()) std::filesystem::create_directories(report_dir);

  const bool with_peers = args.has("with-peers");
  const experiments::PeerOptions peer_opts = experiments::peer_options(args);  // a bad --peer-threads fails before any run
  std::vector<experiments::PeerComparison> peers;
  const bool with_real = args.has("with-real"), attribute = args.has("attribute");
  for (const char* needs_real : {"curve-steps", "peers-dir", "real-paths", "attribute"})
    if (args.has(needs_real) && !with_real)
      throw std::invalid_argument(std::string("--") + needs_real + " belongs to --with-real, which is not given");
  const experiments::AttributionOptions attribution_opts = experiments::attribution_options(args);
  for (const char* needs_attribute : {"rounds", "attribute-seconds", "attribute-method", "attribute-warmup", "attribute-factors"})
    if (args.has(needs_attribute) && !attribute)
      throw std::invalid_argument(std::string("--") + needs_attribute + " belongs to --attribute, which is not given");
  if (attribute && frameworks.size() != 1)
    throw std::invalid_argument("--attribute accounts for one framework at a time; --frameworks " +
                                args.get("frameworks", "caffe,torch,tensorflow,theano") + " names " +
                                std::to_string(frameworks.size()));
  std::vector<experiments::RealComparison> real;
  std::vector<experiments::Waterfall> waterfalls;         // --attribute-method greedy
  std::vector<experiments::ShapleyAccount> accounts;      // --attribute (shapley)

  std::vector<experiments::ComparePlan> plans;
  for (const auto& f : frameworks) plans.push_back(experiments::plan_framework(f, family, args, summary.target_accuracy));

  if (args.has("scale")) {
    summary.factor = args.get_double("scale", 1);
    if (!(summary.factor > 0)) throw std::invalid_argument("--scale " + args.get("scale") + ": expected a positive factor");
    summary.budget = "--scale " + run::number(summary.factor);
    summary.factor_note = "given";
  } else if (budget == "full") {
    summary.budget = "budget full";
    summary.factor_note = "the defaults as they are";
  } else {
    summary.budget =
        budget == "quick" ? "budget quick (" + run::number(budget_s) + " s)" : "budget " + run::number(budget_s) + " s";
    experiments::FactorChoice choice = experiments::budget_factor(plans, budget_s, t0);
    summary.factor = choice.factor;
    summary.factor_note = (choice.fits ? "estimated " : "the shortest lengths, still over budget: estimated ") +
                          run::number(std::round(choice.estimate_s)) + " s of runs from each framework's warm-up speed";
  }
  experiments::apply_factor(plans, summary.factor);

  std::printf("ablate compare on %s, %s: length factor %s for every framework\n", dataset.c_str(),
              summary.budget.c_str(), run::number(summary.factor).c_str());
  for (const auto& p : plans)
    std::printf("  %-10s %s\n", p.row.framework.c_str(),
                p.runnable ? (p.row.length + "   (" + p.row.command + ")").c_str() : (p.row.state + ": " + p.row.note).c_str());
  std::fflush(stdout);

  std::vector<experiments::CompareRow> rows;
  std::size_t index = 0;
  // --with-real: each run writes its initial weights, and the real framework's full run starts
  // from them (the same steps and initial weights; each side its own random draws).
  const std::unique_ptr<experiments::TempDir> initial_dir =
      with_real ? std::make_unique<experiments::TempDir>("ablate-initial") : nullptr;
  for (experiments::ComparePlan& p : plans) {
    ++index;
    if (initial_dir && p.runnable) p.config.snapshot_initial = initial_dir->path() + "/" + p.row.framework + ".ckpt";
    if (!p.runnable) {
      rows.push_back(p.row);
      if (with_real) {  // set beside its real framework still (or its absence), with why it did not run
        run::RunConfig named = p.unscaled;
        named.framework = p.row.framework;
        real.push_back(experiments::compare_with_real(named, rows.back(), attribution_opts.real));
      }
      continue;
    }
    std::printf("\n[%zu/%zu] %s\n", index, plans.size(), p.row.command.c_str());
    if (wait_quiet > 0)
      std::printf("%s\n", run::quiet_wait_text(run::wait_for_quiet(wait_quiet, run::disturbed_above()), wait_quiet).c_str());
    rows.push_back(run::measured_with(disturbances, p.row.framework, [&] { return experiments::run_plan(p); }));
    if (with_peers) {
      std::printf("PyTorch yardstick for %s, %s thread(s), run by %s\n", p.row.framework.c_str(),
                  args.get("peer-threads", "1,2").c_str(), peer_opts.python.c_str());
      peers.push_back(experiments::compare_with_peer(p.config, rows.back(), peer_opts));
      std::fputs(experiments::peer_text(peers.back()).c_str(), stdout);
    }
    if (with_real) {
      std::printf("the real framework beside %s\n", p.row.framework.c_str());
      std::fflush(stdout);
      real.push_back(experiments::compare_with_real(p.config, rows.back(), attribution_opts.real));
    }
    if (attribute && attribution_opts.method == "greedy") {
      waterfalls.push_back(experiments::attribute_greedy(p, rows.back(), dataset, attribution_opts));
      std::fputs(experiments::waterfall_text(waterfalls.back()).c_str(), stdout);
    } else if (attribute) {
      accounts.push_back(experiments::attribute_shapley(p, rows.back(), dataset, attribution_opts));
      std::fputs(experiments::shapley_account_text(accounts.back()).c_str(), stdout);
    }
  }

  summary.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::fputs(experiments::text_table(summary, rows).c_str(), stdout);
  if (with_peers) {
    std::printf("\nablate vs PyTorch (same data, recipe and steps; each side at its faster thread count):\n");
    for (const auto& c : peers) std::printf("%s\n", experiments::peer_ratio_line(c).c_str());
  }
  std::printf("%s\n", disturbances.summary().c_str());  // runs other processes disturbed
  std::printf("threads wait: %s (%s)\n", run::wait_policy_choice().policy.c_str(), run::wait_policy_choice().source.c_str());
  if (with_real) std::fputs(experiments::real_text(real).c_str(), stdout);
  for (const auto& w : waterfalls) std::fputs(experiments::waterfall_text(w).c_str(), stdout);
  for (const auto& a : accounts) std::fputs(experiments::shapley_account_text(a).c_str(), stdout);
  std::printf("whole comparison: %.1f s\n", summary.wall_s);
  if (!report_dir.empty()) {
    std::ostringstream out;
    out << experiments::markdown_report(summary, rows, run::capture_environment());
    if (with_peers) out << "\n" << experiments::peer_markdown(peers, peer_opts.as_installed ? "as installed" : experiments::kPeerBestEnv,
                                                              peer_opts.python);
    if (with_real) out << "\n" << experiments::real_markdown(real);
    for (const auto& w : waterfalls) out << "\n" << experiments::waterfall_markdown(w);
    for (const auto& a : accounts) {
      out << "\n" << experiments::shapley_account_markdown(a);
      const std::string why = experiments::draw_shapley_account(a, report_dir);
      if (!why.empty()) std::printf("attribution plots skipped: %s\n", why.c_str());
    }
    const std::string why = experiments::draw_compare_plots(report_dir, {&summary, &rows, &real, &waterfalls});
    out << "\n## Plots\n\n";
    if (why.empty()) out << experiments::png_markdown(report_dir);
    else out << "Plots skipped: " << why << ".\n";
    write_report(report_dir, "ablate compare: " + dataset, out.str());
    if (why.empty())
      std::printf("%zu plots written to %s (%s)\n", experiments::png_files(report_dir).size(), report_dir.c_str(),
                  run::join(experiments::png_files(report_dir), ", ").c_str());
    else
      std::printf("plots skipped: %s\n", why.c_str());
  }
  if (args.has("out")) std::printf("records appended to %s\n", args.get("out").c_str());
  if (outcome) {
    outcome->rows = rows;
    outcome->real = real;
  }
  std::size_t failed = 0;
  for (const auto& r : rows) failed += r.state == "failed";
  if (failed > 0) {
    std::fprintf(stderr, "error: %zu of %zu framework runs failed (see the table)\n", failed, rows.size());
    return 3;
  }
  return 0;
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
