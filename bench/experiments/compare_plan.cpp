// The plan of `ablate compare` (compare_plan.h): per framework, its run flags, resolved
// configuration, length and process.
#include "bench/experiments/compare_plan.h"

#include <algorithm>
#include <cstdio>

#include "bench/experiments/child_process.h"
#include "bench/run/run_configuration.h"
#include "bench/run/text_format.h"
#include "models/embedded_files.h"
#include "models/preset.h"

namespace ablate::bench::experiments {

namespace {

constexpr double kWarmupS = 1.0;  // timed training per framework's warm-up

run::Flags run_args(const std::string& framework, const run::Flags& compare, double target) {
  run::Flags a;
  a.set("framework", framework);
  a.set("dataset", compare.get("dataset", "fashion-mnist"));
  for (const char* k : {"data", "timing", "backend", "threads", "seed", "out"})
    if (compare.has(k)) a.set(k, compare.get(k));
  if (compare.has("quiet")) a.set("quiet", "true");
  a.set("target-accuracy", run::number(target));
  return a;
}

std::string command_of(const run::Flags& a) {
  std::string cmd = "ablate run";
  for (const char* k : {"framework", "dataset", "data", "backend", "threads", "scale", "target-accuracy", "timing", "seed",
                        "out"})
    if (a.has(k)) cmd += std::string(" --") + k + " " + a.get(k);
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
  ChildOutcome o = run_in_child([&] { return to_text(row_from_result(run::run_configuration(config).result)); });
  if (!o.ok) {
    row.state = "failed";
    row.note = o.error;
    return row;
  }
  read_measurements(o.text, row);
  return row;
}

}  // namespace ablate::bench::experiments
