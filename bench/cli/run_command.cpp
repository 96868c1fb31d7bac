// `ablate run`: resolves a configuration, runs it end to end (run_configuration.h: loads the data,
// trains, tests, appends the result record) and prints a summary.
#include <cstdio>
#include <utility>

#include "bench/cli/commands.h"
#include "bench/run/text_format.h"
#include "bench/run/run_config.h"
#include "bench/run/run_flags.h"
#include "bench/run/run_snapshot.h"
#include "bench/run/run_configuration.h"
#include "bench/run/cpu_disturbance.h"
#include "bench/run/wait_policy.h"

namespace ablate::bench::cli {

namespace {

int run_main(const run::Flags& args) {
  run::check_wait_policy_flag(args);  // --wait-policy and --disturbed-above
  run::read_disturbed_above(args);
  run::RunConfig config = run::resolve_run_config(args);
  if (!config.out.empty()) run::check_writable(config.out);  // fail now, not after hours of training
  run::RunResult result = run::run_configuration(config).result;
  if (result.config.rank != 0) return result.status == "completed" ? 0 : 3;  // --distributed: rank 0 reports

  const run::RunMetrics& m = result.metrics;
  std::printf("\nsummary: %s %s on %s (%s strategy, %s backend, %s threads, %s)\n", result.config.framework.c_str(),
              result.config.model.c_str(), result.config.dataset.c_str(), result.resolved["strategy"].c_str(),
              result.resolved["backend"].c_str(), result.resolved["threads_applied"].c_str(),
              kernels::dtype_name(result.config.precision));
  std::printf("  status            %s%s%s\n", result.status.c_str(), result.error.empty() ? "" : ": ",
              result.error.c_str());
  std::printf("  iterations        %lld of batch %lld\n", static_cast<long long>(m.iterations_done),
              static_cast<long long>(result.config.batch));
  const bool framework_timing = m.timing == run::Timing::framework;
  std::printf("  timing            %s (printed)%s\n", run::timing_name(m.timing),
              m.has_framework_timing ? "; both recorded" : "; the framework has no timing rule");
  std::printf("  training time     %.2f s (%.0f images/s)\n", m.train_time_s, m.images_per_s);
  std::printf("  testing time      %.2f s (%s; %.2f s in all %lld test passes)\n", m.test_time_s,
              framework_timing ? "as the framework counted it" : "final pass", m.test_time_total_s,
              static_cast<long long>(m.test_passes));
  if (m.has_framework_timing) {
    const run::TimingFigures& other = framework_timing ? m.uniform : m.framework;
    std::printf("  %-17s training %.2f s, testing %.2f s\n",
                framework_timing ? "uniform timing" : "framework timing", other.train_s, other.test_s);
  }
  std::printf("  test accuracy     %.4f\n", m.accuracy);
  const run::TimeToAccuracy& t = m.time_to_accuracy;
  if (t.target > 0 && t.reached && m.has_framework_timing)
    std::printf("  time to %-9g %.2f s of training (iteration %lld; framework timing %.2f s)\n", t.target, t.train_s,
                static_cast<long long>(t.iteration), t.framework_train_s);
  else if (t.target > 0 && t.reached)  // a recipe without a timing rule of its own (he): one figure
    std::printf("  time to %-9g %.2f s of training (iteration %lld)\n", t.target, t.train_s,
                static_cast<long long>(t.iteration));
  else if (t.target > 0)
    std::printf("  time to %-9g never reached\n", t.target);
  if (m.early_stopping) {
    const run::EarlyStoppingResult& e = *m.early_stopping;
    std::printf("  validation        best error %.4f at iteration %lld", e.best_validation_error,
                static_cast<long long>(e.best_iteration));
    if (e.test_accuracy_at_best) std::printf(" (test accuracy there %.4f)", *e.test_accuracy_at_best);
    std::printf("; %s (patience %g)\n", e.stopped_early ? "stopped early" : "ran its full length", e.patience);
  }
  std::printf("  peak RSS          %s (tensors: %s)\n", run::mib_text(m.peak_rss_bytes, 1).c_str(),
              run::mib_text(m.peak_tensor_bytes, 1).c_str());
  std::printf("  huge pages        %s (kernel's transparent huge pages: %s); %s of the process on 2 MiB pages\n",
              kernels::huge_pages_name(result.config.huge_pages), result.environment.values["transparent_huge_pages"].c_str(),
              m.huge_page_bytes < 0 ? "unknown" : run::mib_text(m.huge_page_bytes, 1).c_str());
  std::printf("  page faults       %.1f minor per step after the first, median %.0f (first step %lld), %lld major; malloc %s\n",
              m.minor_faults_per_step, m.median_minor_faults_per_step, static_cast<long long>(m.minor_faults_first_step),
              static_cast<long long>(m.major_faults), run::malloc_policy_name(result.config.malloc_policy));
  std::printf("  CPU utilisation   %.2f cores\n", m.cpu_util);
  // What other processes took meanwhile, and how the threads waited.
  std::printf("  others' CPU       %s%s\n", run::disturbance_text(m.disturbance).c_str(),
              run::is_disturbed(m.disturbance, m.disturbed_above)
                  ? (": disturbed (above " + run::number(m.disturbed_above) + " cores)").c_str()
                  : "");
  std::printf("  threads wait      %s (%s)\n", result.environment.values["wait_policy"].c_str(),
              result.environment.values["wait_policy.source"].c_str());
  if (m.peak_flops > 0)
    std::printf("  model FLOPs       %.2f GFLOP/s of %.1f peak (MFU %.1f%%; %.3g GFLOP per step)\n",
                m.achieved_flops / 1e9, m.peak_flops / 1e9, 100 * m.mfu, m.model_flops_per_step / 1e9);
  if (!result.profile.empty()) {
    std::printf("  profile           %s; spans cover %.1f%% of a step (median); slowest ops:\n", config.profile.c_str(),
                100 * result.profile_step_coverage);
    for (std::size_t i = 0; i < result.profile.size() && i < 8; ++i) {
      const run::ProfileOp& op = result.profile[i];
      std::printf("    %-28s %8lld calls %9.3f s", op.name.c_str(), static_cast<long long>(op.calls), op.seconds);
      if (op.flops > 0) std::printf("  %7.1f GFLOP/s", op.flops / op.seconds / 1e9);
      std::printf("\n");
    }
  }
  if (!config.out.empty()) std::printf("  result appended to %s\n", config.out.c_str());
  if (result.status != "completed") {
    std::fprintf(stderr, "error: training %s: %s\n", result.status.c_str(), result.error.c_str());
    if (result.status == "interrupted") return 128 + run::stop_signal();  // 130 for SIGINT, 143 for SIGTERM
    return 3;
  }
  return 0;
}

// The run flags, and the process's own: how threads wait, when a run counts as disturbed.
std::vector<run::FlagSpec> run_options() {
  std::vector<run::FlagSpec> options = run::run_flags();
  options.push_back(run::wait_policy_flag());
  options.push_back(run::disturbed_above_flag());
  return options;
}

}  // namespace

Command run_command() {
  return {"run", "train and test one framework's default configuration (any factor overridable)",
          "Trains one framework's model with its default recipe (every flag overrides one factor),\n"
          "tests it, prints a summary and appends one JSON record to --out.",
          run_options(), run_main};
}

}  // namespace ablate::bench::cli
