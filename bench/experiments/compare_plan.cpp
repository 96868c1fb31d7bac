// The plan of `ablate compare` (compare_plan.h): per framework, its run flags, resolved
// configuration, length and process.
#include "bench/experiments/compare_plan.h"

#include <algorithm>
#include <cstdio>

#include "bench/experiments/child_process.h"
#include "bench/experiments/validation_cap.h"
#include "bench/run/run_configuration.h"
#include "bench/run/run_flags.h"
#include "bench/run/text_format.h"
#include "models/embedded_files.h"
#include "models/preset.h"

namespace ablate::bench::experiments {

namespace {

constexpr double kWarmupS = 1.0;  // timed training per framework's warm-up

// Run flags that name or shape one run, not every framework's alike: compare does not pass them
// on (its own --dataset, --data, --scale, --target-accuracy, --out, --quiet are its own).
const std::vector<std::string> kOneRunFlags = {
    "framework", "dataset", "data", "preset", "model", "iterations", "epochs", "scale", "target-accuracy", "out",
    "profile", "snapshot", "snapshot-every", "snapshot-initial", "resume", "distributed", "allreduce", "bucket-mb", "quiet"};

run::Flags run_args(const std::string& framework, const run::Flags& compare, double target) {
  run::Flags a;
  a.set("framework", framework);
  a.set("dataset", compare.get("dataset", "fashion-mnist"));
  for (const char* k : {"data", "out"})
    if (compare.has(k)) a.set(k, compare.get(k));
  for (const std::string& k : shared_run_flags())
    if (compare.has(k)) a.set(k, compare.get(k));
  if (compare.has("quiet")) a.set("quiet", "true");
  // A curve for every framework, whatever its recipe tests: the same number of evenly spaced tests.
  if (!compare.has("curve-points")) a.set("curve-points", std::to_string(kCompareCurvePoints));
  a.set("target-accuracy", run::number(target));
  return a;
}

// The equivalent `ablate run` command: the flags compare always had in their order, then every
// other shared flag given (a switch without its value), then --out.
std::string command_of(const run::Flags& a) {
  const std::vector<std::string> first = {"framework", "dataset",         "data",   "backend", "threads",
                                          "scale",     "target-accuracy", "timing", "seed"};
  std::string cmd = "ablate run";
  for (const std::string& k : first)
    if (a.has(k)) cmd += " --" + k + " " + a.get(k);
  for (const std::string& k : shared_run_flags()) {
    if (!a.has(k) || std::find(first.begin(), first.end(), k) != first.end()) continue;
    const run::FlagSpec* spec = run::find_run_flag(k);
    cmd += " --" + k + (spec && spec->metavar.empty() ? "" : " " + a.get(k));
  }
  if (a.has("out")) cmd += " --out " + a.get("out");
  return cmd;
}

std::string length_text(const run::RunConfig& unscaled, const run::RunConfig& scaled) {
  if (unscaled.epochs > 0) {
    if (scaled.length_scale == 1) return run::number(unscaled.epochs) + " epochs";
    return run::number(scaled.epochs) + " of " + run::number(unscaled.epochs) + " epochs";
  }
  if (scaled.length_scale == 1) return std::to_string(unscaled.iterations) + " iterations";
  return std::to_string(scaled.iterations) + " of " + std::to_string(unscaled.iterations) + " iterations";
}

}  // namespace

const std::vector<std::string>& shared_run_flags() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const run::FlagSpec& f : run::run_flags())
      if (std::find(kOneRunFlags.begin(), kOneRunFlags.end(), f.name) == kOneRunFlags.end()) out.push_back(f.name);
    return out;
  }();
  return names;
}

const std::vector<std::string>& compare_frameworks() {
  static const std::vector<std::string> frameworks = {"caffe", "torch", "tensorflow", "theano"};
  return frameworks;
}

double default_target(const std::string& dataset) {
  if (dataset == "mnist") return 0.98;
  if (dataset == "fashion-mnist") return 0.85;
  if (dataset == "cifar10") return 0.70;
  return 0.9;  // synthetic
}

ComparePlan plan_framework(const std::string& framework, const std::string& family, const run::Flags& compare,
                           double target) {
  ComparePlan p;
  p.row.framework = framework;
  p.args = run_args(framework, compare, target);
  const std::string preset = models::preset_name(framework, family);
  if (!models::embedded_file("presets/" + preset + ".preset")) {
    p.row.state = "not run";
    p.row.note = "no preset " + preset + " in this build yet";
    return p;
  }
  try {
    p.unscaled = run::resolve_run_config(p.args);
  } catch (const std::exception& e) {
    p.row.state = "failed";
    p.row.note = e.what();
    return p;
  }
  p.runnable = true;
  return p;
}

// Sets every runnable plan's scaled configuration and command.
void apply_factor(std::vector<ComparePlan>& plans, double factor) {
  for (auto& p : plans) {
    if (!p.runnable) continue;
    p.config = p.unscaled;
    if (factor != 1) {
      const std::string scale = run::number(factor);  // as the command that runs it alone says it
      p.args.set("scale", scale);
      run::apply_length_scale(p.config, run::parse_double(scale, "--scale"));
    }
    p.row.command = command_of(p.args);
    p.row.length = length_text(p.unscaled, p.config);
  }
}

// --budget quick|SECONDS: warm every runnable framework up in its own process, then choose.
FactorChoice budget_factor(std::vector<ComparePlan>& plans, double budget_s, std::chrono::steady_clock::time_point start) {
  std::vector<run::RunConfig> configs;
  std::vector<WarmupMeasure> measures;
  for (auto& p : plans) {
    if (!p.runnable) continue;
    std::printf("warm-up %-10s ", p.row.framework.c_str());
    std::fflush(stdout);
    run::RunConfig quiet_config = p.unscaled;
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
  const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (configs.empty()) return {};
  return choose_factor(configs, measures, std::max(1.0, budget_s - spent));
}

CompareRow run_plan(const ComparePlan& p) {
  CompareRow row = p.row;
  const run::RunConfig config = p.config;
  ChildOutcome o = run_in_child([&] {
    std::string note;
    run::RunHooks hooks;
    hooks.fit_to_data = [&](run::RunConfig& c, const datasets::TrainTest& data) { cap_validation(c, data, note); };
    CompareRow measured = row_from_result(run::run_configuration(config, hooks).result);
    if (!note.empty()) measured.note = note + (measured.note.empty() ? "" : "; " + measured.note);
    return to_text(measured);
  });
  if (!o.ok) {
    row.state = "failed";
    row.note = o.error;
    return row;
  }
  read_measurements(o.text, row);
  return row;
}

}  // namespace ablate::bench::experiments
