// `ablate compare`: the study's first experiment. Trains the four frameworks with their
// default recipes, one after another, each in its own process (child_process.h) and each
// resolved by resolve_run_config exactly as `ablate run --framework F` would, then prints the
// study's table: training time, testing time, accuracy, time to a target accuracy, peak RSS
// and mean CPU per framework, next to the study's published figures. `--budget quick`
// shortens every length by one common factor (compare_budget.h); `--budget full` runs the
// defaults as they are.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "bench/child_process.h"
#include "bench/text_format.h"
#include "bench/commands.h"
#include "bench/compare_budget.h"
#include "bench/compare_table.h"
#include "bench/peer_process.h"
#include "bench/peer_runner.h"
#include "bench/peer_table.h"
#include "bench/run_config.h"
#include "bench/training_loop.h"
#include "datasets/dataset_registry.h"
#include "graph/engine.h"
#include "models/embedded_files.h"
#include "models/preset.h"

namespace ablate::bench {

namespace {

const std::vector<std::string> kFrameworks = {"caffe", "torch", "tensorflow", "theano"};
constexpr double kQuickBudgetS = 480;  // about 8 minutes on the 2-core machine
constexpr double kWarmupS = 1.0;       // timed training per framework's warm-up

std::vector<OptionSpec> compare_options() {
  return {
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
      {"out", "FILE", "append each run's result record (one JSON line) to FILE"},
      {"report", "DIR", "write the table as DIR/report.md"},
      {"quiet", "", "no progress lines from the runs"},
      {"with-peers", "", "after each run, PyTorch (/usr/bin/python3, python3-torch) trains the same model on the same "
                         "data and recipe; prints images/s, accuracy, peak RSS and the ratio per model"},
      {"peer-threads", "LIST", "PyTorch's thread counts with --with-peers (default 1,2; the faster one is compared)"},
      {"peer-script", "FILE", "the PyTorch script (default: the source tree's bench/peers/pytorch_train.py)"},
      {"peer-as-installed", "", "run PyTorch as installed (default: its best found setting, OPENBLAS_NUM_THREADS=1 "
                                "and glibc malloc kept)"},
  };
}

// A target each framework's default should pass on the data set, so time-to-accuracy compares.
double default_target(const std::string& dataset) {
  if (dataset == "mnist") return 0.98;
  if (dataset == "fashion-mnist") return 0.85;
  if (dataset == "cifar10") return 0.70;
  return 0.9;  // synthetic
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}

// One framework's place in the comparison.
struct Plan {
  CompareRow row;
  bool runnable = false;
  ParsedArgs args;     // as `ablate run` would get them
  RunConfig unscaled;  // the default length
  RunConfig config;    // the length to run
};

ParsedArgs run_args(const std::string& framework, const ParsedArgs& compare, double target) {
  ParsedArgs a;
  a.values_["framework"] = framework;
  a.values_["dataset"] = compare.get("dataset", "fashion-mnist");
  for (const char* k : {"data", "timing", "backend", "threads", "seed", "out"})
    if (compare.has(k)) a.values_[k] = compare.get(k);
  if (compare.has("quiet")) a.values_["quiet"] = "true";
  a.values_["target-accuracy"] = number(target);
  return a;
}

std::string command_of(const ParsedArgs& a) {
  std::string cmd = "ablate run";
  for (const char* k : {"framework", "dataset", "data", "backend", "threads", "scale", "target-accuracy", "timing", "seed",
                        "out"})
    if (a.has(k)) cmd += std::string(" --") + k + " " + a.get(k);
  return cmd;
}

std::string length_text(const RunConfig& unscaled, const RunConfig& scaled) {
  if (unscaled.epochs > 0) {
    if (scaled.length_scale == 1) return number(unscaled.epochs) + " epochs";
    return number(scaled.epochs) + " of " + number(unscaled.epochs) + " epochs";
  }
  if (scaled.length_scale == 1) return std::to_string(unscaled.iterations) + " iterations";
  return std::to_string(scaled.iterations) + " of " + std::to_string(unscaled.iterations) + " iterations";
}

Plan plan_framework(const std::string& framework, const std::string& family, const ParsedArgs& compare, double target) {
  Plan p;
  p.row.framework = framework;
  p.args = run_args(framework, compare, target);
  const std::string preset = models::preset_name(framework, family);
  if (!models::embedded_file("presets/" + preset + ".preset")) {
    p.row.state = "not run";
    p.row.note = "no preset " + preset + " in this build yet";
    return p;
  }
  try {
    p.unscaled = resolve_run_config(p.args);
  } catch (const std::exception& e) {
    p.row.state = "failed";
    p.row.note = e.what();
    return p;
  }
  p.runnable = true;
  return p;
}

// Sets every runnable plan's scaled configuration and command.
void apply_factor(std::vector<Plan>& plans, double factor) {
  for (auto& p : plans) {
    if (!p.runnable) continue;
    if (factor != 1) p.args.values_["scale"] = number(factor);
    p.config = resolve_run_config(p.args);
    p.row.command = command_of(p.args);
    p.row.length = length_text(p.unscaled, p.config);
  }
}

// --budget quick|SECONDS: warm every runnable framework up in its own process, then choose.
FactorChoice budget_factor(std::vector<Plan>& plans, double budget_s, std::chrono::steady_clock::time_point t0) {
  std::vector<RunConfig> configs;
  std::vector<WarmupMeasure> measures;
  for (auto& p : plans) {
    if (!p.runnable) continue;
    std::printf("warm-up %-10s ", p.row.framework.c_str());
    std::fflush(stdout);
    RunConfig quiet_config = p.unscaled;
    quiet_config.quiet = true;
    ChildOutcome o = run_in_child([&] { return to_text(measure_warmup(quiet_config, kWarmupS)); });
    if (!o.ok) {
      std::printf("failed: %s\n", o.error.c_str());
      p.runnable = false;
      p.row.state = "failed";
      p.row.note = "warm-up: " + o.error;
      continue;
    }
    WarmupMeasure m = warmup_from_text(o.text);
    std::printf("%8.0f training images/s, %8.0f evaluation images/s, set-up %.1f s\n", m.train_images_per_s,
                m.eval_images_per_s, m.setup_s);
    configs.push_back(p.unscaled);
    measures.push_back(m);
  }
  const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (configs.empty()) return {};
  return choose_factor(configs, measures, std::max(1.0, budget_s - spent));
}

CompareRow run_plan(const Plan& p) {
  CompareRow row = p.row;
  const RunConfig config = p.config;
  ChildOutcome o = run_in_child([&] {
    datasets::TrainTest data = datasets::load_dataset(config.dataset, config.data_dir, config.seed);
    RunResult result = train_and_test(config, std::move(data));
    if (!config.out.empty()) append_record(config.out, to_json_line(result));
    return to_text(row_from_result(result));
  });
  if (!o.ok) {
    row.state = "failed";
    row.note = o.error;
    return row;
  }
  read_measurements(o.text, row);
  return row;
}

}  // namespace

int compare_command(int argc, char** argv) {
  ArgParser parser("ablate compare",
                   "Trains the four frameworks with their default recipes one after another, each in its own\n"
                   "process, and prints the study's table next to the study's published figures.",
                   compare_options());
  ParsedArgs args = parser.parse(argc, argv, 0);
  if (args.help) {
    std::fputs(parser.help().c_str(), stdout);
    return 0;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const std::string dataset = args.get("dataset", "fashion-mnist");
  const std::string family = datasets::dataset_family(dataset, args.get("data", ""));  // throws naming an unknown data set
  std::vector<std::string> frameworks = split_list(args.get("frameworks", "caffe,torch,tensorflow,theano"));
  if (frameworks.empty()) throw std::invalid_argument("--frameworks '': expected some of caffe, torch, tensorflow, theano");
  for (std::size_t i = 0; i < frameworks.size(); ++i) {
    if (std::find(kFrameworks.begin(), kFrameworks.end(), frameworks[i]) == kFrameworks.end())
      throw std::invalid_argument("--frameworks " + args.get("frameworks") + ": '" + frameworks[i] +
                                  "' is not one of caffe, torch, tensorflow, theano");
    if (std::find(frameworks.begin(), frameworks.begin() + static_cast<long>(i), frameworks[i]) != frameworks.begin() + static_cast<long>(i))
      throw std::invalid_argument("--frameworks " + args.get("frameworks") + ": '" + frameworks[i] + "' is named twice");
  }
  CompareSummary summary;
  summary.dataset = dataset;
  summary.family = family;
  summary.timing = args.get("timing", "uniform");
  summary.target_accuracy = args.has("target-accuracy") ? args.get_double("target-accuracy", 0) : default_target(dataset);
  if (!(summary.target_accuracy >= 0 && summary.target_accuracy <= 1))
    throw std::invalid_argument("--target-accuracy " + args.get("target-accuracy") + ": expected an accuracy in [0, 1]");
  if (summary.timing != "uniform" && summary.timing != "framework")
    throw std::invalid_argument("--timing " + summary.timing + ": expected uniform or framework");
  args.get_int("seed", 1, 0);  // a malformed seed or thread count fails here, not in every row
  if (args.has("threads")) parse_thread_count(args.get("threads"), "--threads");
  const std::string budget = args.get("budget", "quick");
  double budget_s = 0;
  if (budget == "quick") budget_s = kQuickBudgetS;
  else if (budget != "full") {
    budget_s = parse_double(budget, "--budget");
    if (budget_s <= 0) throw std::invalid_argument("--budget " + budget + ": expected quick, full or a positive number of seconds");
  }
  if (args.has("out")) check_writable(args.get("out"));
  std::string report_dir = args.get("report", "");
  if (!report_dir.empty()) std::filesystem::create_directories(report_dir);

  const bool with_peers = args.has("with-peers");
  const PeerOptions peer_opts = peer_options(args);  // a bad --peer-threads fails before any run
  std::vector<PeerComparison> peers;

  std::vector<Plan> plans;
  for (const auto& f : frameworks) plans.push_back(plan_framework(f, family, args, summary.target_accuracy));

  if (args.has("scale")) {
    summary.factor = args.get_double("scale", 1);
    if (!(summary.factor > 0)) throw std::invalid_argument("--scale " + args.get("scale") + ": expected a positive factor");
    summary.budget = "--scale " + number(summary.factor);
    summary.factor_note = "given";
  } else if (budget == "full") {
    summary.budget = "budget full";
    summary.factor_note = "the defaults as they are";
  } else {
    summary.budget = budget == "quick" ? "budget quick (" + number(budget_s) + " s)" : "budget " + number(budget_s) + " s";
    FactorChoice choice = budget_factor(plans, budget_s, t0);
    summary.factor = choice.factor;
    summary.factor_note = (choice.fits ? "estimated " : "the shortest lengths, still over budget: estimated ") +
                          number(std::round(choice.estimate_s)) + " s of runs from each framework's warm-up speed";
  }
  apply_factor(plans, summary.factor);

  std::printf("ablate compare on %s, %s: length factor %s for every framework\n", dataset.c_str(),
              summary.budget.c_str(), number(summary.factor).c_str());
  for (const auto& p : plans)
    std::printf("  %-10s %s\n", p.row.framework.c_str(),
                p.runnable ? (p.row.length + "   (" + p.row.command + ")").c_str() : (p.row.state + ": " + p.row.note).c_str());
  std::fflush(stdout);

  std::vector<CompareRow> rows;
  std::size_t index = 0;
  for (const auto& p : plans) {
    ++index;
    if (!p.runnable) {
      rows.push_back(p.row);
      continue;
    }
    std::printf("\n[%zu/%zu] %s\n", index, plans.size(), p.row.command.c_str());
    rows.push_back(run_plan(p));
    if (with_peers) {
      std::printf("PyTorch yardstick for %s, %s thread(s)\n", p.row.framework.c_str(), args.get("peer-threads", "1,2").c_str());
      peers.push_back(compare_with_peer(p.config, rows.back(), peer_opts));
      std::fputs(peer_text(peers.back()).c_str(), stdout);
    }
  }
  summary.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::fputs(text_table(summary, rows).c_str(), stdout);
  if (with_peers) {
    std::printf("\nablate vs PyTorch (same data, recipe and steps; each side at its faster thread count):\n");
    for (const auto& c : peers) std::printf("%s\n", peer_ratio_line(c).c_str());
  }
  std::printf("whole comparison: %.1f s\n", summary.wall_s);
  if (!report_dir.empty()) {
    std::filesystem::path path = std::filesystem::path(report_dir) / "report.md";
    std::ofstream out(path);
    out << markdown_report(summary, rows, capture_environment());
    if (with_peers) out << "\n" << peer_markdown(peers, peer_opts.as_installed ? "as installed" : kPeerBestEnv);
    if (!out) throw std::runtime_error("report " + path.string() + ": cannot write");
    std::printf("report written to %s\n", path.string().c_str());
  }
  if (args.has("out")) std::printf("records appended to %s\n", args.get("out").c_str());
  std::size_t failed = 0;
  for (const auto& r : rows) failed += r.state == "failed";
  if (failed > 0) {
    std::fprintf(stderr, "error: %zu of %zu framework runs failed (see the table)\n", failed, rows.size());
    return 3;
  }
  return 0;
}

}  // namespace ablate::bench
