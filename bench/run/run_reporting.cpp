// Resolved settings, the memory check, MFU and the profile output of a run (run_reporting.h).
#include "bench/run/run_reporting.h"

#include <algorithm>

#include "bench/run/median.h"
#include "bench/run/resource_monitor.h"
#include "bench/run/run_timing.h"
#include "bench/run/text_format.h"
#include "models/flops.h"
#include "models/memory_estimate.h"

namespace ablate::bench::run {

void fill_resolved(const PreparedRun& run, std::map<std::string, std::string>& r) {
  const RunConfig& c = run.config;
  r["strategy"] = run.engine->strategy();
  r["backend"] = run.backend->name();
  r["backend_version"] = run.backend->library_version();
  r["threads_applied"] = std::to_string(run.backend->threads());
  r["deterministic"] = run.backend->deterministic() ? "true" : "false";
  r["check_gradients"] = c.optimizer.check_gradients ? "true" : "false";
  r["model_source"] = run.spec.source;
  r["transform"] = run.transform.name;
  r["test_transform"] = run.test_transform.name;
  r["train_images"] = std::to_string(run.data.train.count());
  r["validation_images"] = std::to_string(run.validation.count());
  r["timing"] = timing_name(c.timing);
  r["timing_rule"] = framework_timing_rule(c.framework);
  const StrategySwitches& s = c.switches;
  r["weight_average_decay"] = number(s.weight_average_decay);
  r["blocked_layout"] = s.blocked_layout ? "true" : "false";
  r["caching_allocator"] = s.caching_allocator ? "true" : "false";
  r["per_sample"] = s.per_sample ? "true" : "false";
  r["disabled_passes"] = join(s.disabled_passes, ",");
  r["executor"] = graph::executor_name(s.executor);
  r["inter_op_threads"] = std::to_string(s.inter_op_threads);
  // The static executor's pool as cut to the core budget, and the budget's split.
  for (const auto& [key, value] : run.engine->report().settings)
    if (key == "inter_op_threads_applied" || key == "thread_budget") r[key] = value;
  r["unused_options"] = join(c.unused_options, ",");
  if (run.plan) {  // --plan: each layer's backend, where the plan came from, its start-up cost
    r["plan"] = run.plan->plan.summary();
    r["plan_fallback"] = run.plan->plan.fallback.label();
    r["plan_source"] = run.plan->source;
    r["plan_startup_s"] = number(run.plan->startup_s);
    if (run.plan->plan.measure_seconds > 0) r["plan_measure_s"] = number(run.plan->plan.measure_seconds);
    if (!run.plan->note.empty()) r["plan_note"] = run.plan->note;
    if (!run.plan->plan.whole_plans_note.empty()) r["plan_whole_plans"] = run.plan->plan.whole_plans_note;
    if (!run.plan->plan.measure_note.empty()) r["plan_measure_detail"] = run.plan->plan.measure_note;
  }
}

void check_memory(const PreparedRun& run) {
  const RunConfig& c = run.config;
  const models::MemoryEstimate e = models::estimate_training_memory(run.spec, c.batch, run.dtype, c.optimizer.type);
  const double available = static_cast<double>(available_memory_bytes());
  if (!c.memory_check || available <= 0 || e.total() <= available) return;
  auto gib = [](double bytes) { return number(bytes / (1024.0 * 1024.0 * 1024.0)) + " GiB"; };
  throw std::invalid_argument("batch " + std::to_string(c.batch) + " of model " + run.spec.name + " in " +
                              kernels::dtype_name(c.precision) + " needs about " + gib(e.total()) + " (activations " +
                              gib(e.activation_bytes) + ", workspace " + gib(e.workspace_bytes) +
                              ", parameters and state " +
                              gib(e.parameter_bytes + e.gradient_bytes + e.optimizer_bytes) + ") but only " +
                              gib(available) + " is available; use a smaller --batch (or --no-memory-check)");
}

void fill_mfu(const PreparedRun& run, double peak_flops, RunMetrics& m) {
  m.model_flops_per_step = models::model_flops(run.spec, run.config.batch).training_step();
  m.peak_flops = peak_flops;
  const double train_s = m.uniform.train_s;
  m.achieved_flops = train_s > 0 ? m.model_flops_per_step * static_cast<double>(m.iterations_done) / train_s : 0;
  m.mfu = peak_flops > 0 ? m.achieved_flops / peak_flops : 0;
}

void finish_profile(const PreparedRun& run, RunResult& result) {
  if (!run.trace) return;
  run.trace->write_chrome_trace(run.config.profile);
  for (const auto& [name, t] : run.trace->totals("op")) result.profile.push_back({name, t.calls, t.seconds, t.flops});
  std::sort(result.profile.begin(), result.profile.end(),
            [](const ProfileOp& a, const ProfileOp& b) { return a.seconds > b.seconds; });
  result.resolved["profile"] = run.config.profile;
  std::vector<double> coverage = run.trace->coverage("step");
  if (!coverage.empty()) result.profile_step_coverage = median(std::move(coverage));
}

}  // namespace ablate::bench::run
