// `ablate ablate`: a designed experiment over named factors (any run flags) and their levels
// (designed_experiment.h): a full two-level factorial, a fractional one of resolution IV or more
// (--fraction), more than two levels through ANOVA, and with --shapley every factor's Shapley
// value of the change from every first level to every second. Repeats, a seeded randomised and
// interleaved run order, resumable (--out), failed runs recorded and shown; then the effects with
// their 95% intervals beside the run-to-run spread (design_analysis.h), and with --report DIR
// the tables, ablate.json and plots (bench/report/design_plots.py). Started by an MPI launcher,
// the runs are spread over the ranks as a sweep's (design_runner.h).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "bench/cli/commands.h"
#include "bench/experiments/design_runner.h"
#include "bench/experiments/design_table.h"
#include "bench/experiments/plot_script.h"
#include "bench/experiments/sweep_runner.h"
#include "bench/run/results_reader.h"
#include "bench/run/run_config.h"
#include "bench/run/cpu_disturbance.h"
#include "bench/run/run_flags.h"
#include "bench/run/text_format.h"
#include "bench/run/wait_policy.h"

namespace ablate::bench::cli {

namespace {

namespace ex = experiments;

// Own options, not passed to the runs.
const std::vector<const char*> kOwn = {"factor", "out", "quiet", "repeats", "fraction", "shapley", "orders", "design-seed",
                                       "metric", "max-iterations", "report", "bootstrap", "verbose", "python", "wait-policy",
                                       "rerun-disturbed", "disturbed-above"};

// A level that no cell can run with is an error naming it (a level that only fails beside some
// other factor's level is a failed run of those cells).
void check_levels(const ex::DesignSpec& spec, const ex::DesignPlan& plan) {
  std::map<std::pair<std::size_t, int>, std::string> first_error;
  std::map<std::pair<std::size_t, int>, bool> resolves;
  for (const ex::DesignCell& cell : plan.cells) {
    std::string error;
    try {
      run::resolve_run_config(ex::cell_args(spec, cell));
    } catch (const std::exception& e) {
      error = e.what();
    }
    for (std::size_t f = 0; f < spec.factors.size(); ++f) {
      const std::pair<std::size_t, int> at{f, cell.level[f]};
      resolves[at] = resolves[at] || error.empty();
      if (!error.empty() && !first_error.count(at)) first_error[at] = error;
    }
  }
  for (const auto& [at, ok] : resolves)
    if (!ok) {
      const ex::SweepFactor& f = spec.factors[at.first];
      throw std::invalid_argument("--factor " + f.key + "=" + run::join(f.values, ",") + ": the level '" +
                                  f.values[static_cast<std::size_t>(at.second)] + "' does not resolve with any cell: " +
                                  first_error[at]);
    }
}

void write_report(const ex::DesignReport& report, const std::filesystem::path& dir, const std::string& python) {
  std::filesystem::create_directories(dir);
  const auto json_path = dir / "ablate.json";
  {
    std::ofstream j(json_path.string() + ".tmp");
    j << ex::design_json(report).dump(1) << "\n";
    if (!j) throw std::runtime_error("--report " + dir.string() + ": cannot write ablate.json");
  }
  std::filesystem::rename(json_path.string() + ".tmp", json_path);
  std::string md = ex::design_markdown(report);
  const std::string script = std::string(ABLATE_SOURCE_DIR) + "/bench/report/design_plots.py";
  const std::string why = ex::draw_plots(python, script, {json_path.string()}, dir);
  md += "\n## Plots\n\n" + (why.empty() ? ex::png_markdown(dir) : "Plots skipped: " + why + ".\n");
  {
    std::ofstream out((dir / "report.md.tmp").string());
    out << md;
    if (!out) throw std::runtime_error("--report " + dir.string() + ": cannot write report.md");
  }
  std::filesystem::rename(dir / "report.md.tmp", dir / "report.md");
  if (why.empty()) std::printf("plots written to %s\n", dir.string().c_str());
  else std::printf("plots skipped: %s\n", why.c_str());
  std::printf("report written to %s\n", (dir / "report.md").string().c_str());
}

int ablate_main(const run::Flags& args) {
  if (!args.has("out")) throw std::invalid_argument("ablate ablate: --out FILE is required (the results file, also read to resume)");
  ex::DesignSpec spec;
  for (const auto& f : args.all("factor")) {
    ex::SweepFactor factor = ex::parse_vary(f);
    spec.factors.push_back(factor);
  }
  spec.repeats = static_cast<int>(args.get_int("repeats", spec.repeats, 1));
  spec.fraction = static_cast<int>(args.get_int("fraction", 0, 0));
  spec.shapley = args.has("shapley");
  spec.orders = static_cast<int>(args.get_int("orders", spec.orders, 1));
  spec.seed = static_cast<std::uint64_t>(args.get_int("design-seed", 1, 0));
  spec.max_iterations = args.get_int("max-iterations", 0, 0);
  spec.rerun_disturbed = static_cast<int>(args.get_int("rerun-disturbed", spec.rerun_disturbed, 0));
  run::read_disturbed_above(args);  // the forked runs' records judge their disturbance by it
  spec.base = args.values();
  for (const char* k : kOwn) spec.base.erase(k);
  run::check_wait_policy_flag(args);  // one wait policy for every run (they are forks)
  const std::vector<ex::DesignMetric> metrics = ex::design_metrics(args.get("metric", "time"));
  ex::BootstrapOptions bootstrap;
  bootstrap.replicates = static_cast<int>(args.get_int("bootstrap", bootstrap.replicates, 100));
  bootstrap.seed = spec.seed;
  const ex::DesignPlan plan = ex::plan_design(spec);
  run::resolve_run_config(ex::cell_args(spec, ex::DesignCell{}));  // a bad base flag fails now, once
  check_levels(spec, plan);

  const std::string out = args.get("out");
  if (ex::join_sweep_ranks()) ex::refuse_distributed_runs(spec.base, spec.factors);  // started by an MPI launcher
  const bool prints = ex::sweep_prints();
  if (prints)
    std::printf("ablate ablate: %zu cells x %d repeats in a randomised, interleaved order (seed %llu) into %s\n",
                plan.cells.size(), spec.repeats, static_cast<unsigned long long>(spec.seed), out.c_str());
  const ex::DesignTotals totals =
      ex::run_design(spec, plan, out, ex::child_process_runner(spec, args.has("verbose")), prints);
  if (!prints) return 0;  // rank 0 reads the results and analyses them
  std::printf("runs done: %d run, %d skipped (already in %s), %d failed; %d disturbed and run again, %d disturbed and kept\n",
              totals.runs, totals.skipped, out.c_str(), totals.failed, totals.rerun, totals.disturbed);

  const run::ResultsFile file = run::read_results(out);
  ex::DesignSamples samples = ex::collect_samples(spec, plan, metrics, file.records);
  ex::DesignReport report{&spec, &plan, &samples, {}};
  for (std::size_t m = 0; m < metrics.size(); ++m)
    report.metrics.push_back(ex::analyse_metric(spec, plan, metrics[m], samples.values[m], bootstrap));
  std::fputs(ex::design_text(report).c_str(), stdout);
  if (args.has("report")) write_report(report, args.get("report"), args.get("python", "/usr/bin/python3"));
  int failed_now = 0;
  for (int f : samples.failed) failed_now += f;
  if (failed_now > 0) {
    std::fprintf(stderr, "error: %d run(s) of the design failed (shown above); a rerun tries them again\n", failed_now);
    return 3;
  }
  return 0;
}

}  // namespace

Command ablate_command() {
  std::vector<run::FlagSpec> options = run::run_flags();  // --out (run's own) is the design's results file
  for (run::FlagSpec& o : options)
    if (o.name == "out") o.help = "the results file (required; appended, and read to skip runs already done)";
  options.push_back({"factor", "KEY=L1,L2,...", "a run flag and its levels (repeatable; two levels each for a two-level design)", true});
  options.push_back({"repeats", "N", "runs per cell (default 3; the intervals and the run-to-run spread come from them)"});
  options.push_back({"fraction", "P", "a 2^(k-P) fractional design of resolution IV or more (two-level factors; default 0: full)"});
  options.push_back({"shapley", "", "each factor's Shapley value of the change from every first level to every second "
                                    "(exact up to 8 factors, sampled orders beyond)"});
  options.push_back({"orders", "M", "--shapley beyond 8 factors: sampled orders (default 200)"});
  options.push_back({"design-seed", "N", "seed of the run order, the sampled orders and the bootstrap (default 1)"});
  options.push_back({"metric", "LIST", "what to analyse: time, images, memory, accuracy (comma-separated; default time)"});
  options.push_back({"max-iterations", "N", "train every run at most N iterations (quick checks)"});
  options.push_back({"rerun-disturbed", "N", "run a measurement again, up to N times, when other processes used more than "
                                             "--disturbed-above cores while it trained (default 1; 0: keep and mark it)"});
  options.push_back(run::disturbed_above_flag());
  options.push_back({"report", "DIR", "DIR/report.md, DIR/ablate.json and plots (Shapley waterfall, interaction matrix)"});
  options.push_back({"bootstrap", "N", "bootstrap replicates of the 95% intervals (default 2000)"});
  options.push_back({"python", "PATH", "the Python with matplotlib for --report (default /usr/bin/python3)"});
  options.push_back({"verbose", "", "the runs print their progress lines"});
  options.push_back(run::wait_policy_flag());
  return {"ablate", "a designed experiment: each factor's effect, interactions and Shapley share, with 95% intervals",
          "Runs a designed experiment over --factor KEY=L1,L2,... (any run flags; the other run flags are\n"
          "the base): the full two-level factorial, a fraction of resolution IV or more (--fraction P),\n"
          "or every combination when a factor has more levels (ANOVA). Every cell --repeats times, in a\n"
          "seeded random order, pass after pass; each run in its own process, its record appended to\n"
          "--out (a failed run too, as failed); a rerun skips the runs already done. Then, per --metric,\n"
          "main effects and pairwise interactions (and with --shapley each factor's Shapley value of\n"
          "the change from every first level to every second), each with its 95% bootstrap interval\n"
          "beside the run-to-run spread; figures within that noise are marked. Exits 3 when a run failed.\n"
          "Under mpirun (one rank per host for time) the runs are spread over the ranks as a sweep's.\n"
          "Example: ablate ablate --framework caffe --dataset synthetic --max-iterations 50\n"
          "  --factor strategy=layerwise,static --factor backend=openblas,onednn --repeats 3 --shapley --out d.jsonl",
          options, ablate_main};
}

}  // namespace ablate::bench::cli
