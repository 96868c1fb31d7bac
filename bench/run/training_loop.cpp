// The training loop: batches -> Engine::train_step, the recipe's evaluations, timing and monitoring.
#include "bench/run/training_loop.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stdexcept>

#include "bench/run/distributed_run.h"
#include "graph/optim/divergence_error.h"
#include "bench/run/early_stopping.h"
#include "bench/run/environment.h"
#include "bench/run/evaluation_schedule.h"
#include "bench/run/page_faults.h"
#include "bench/run/prepared_run.h"
#include "bench/run/run_reporting.h"
#include "bench/run/run_snapshot.h"
#include "bench/run/test_pass.h"
#include "bench/run/text_format.h"
#include "datasets/loader.h"
#include "graph/checkpoint_file.h"
#include "graph/engine_checkpoint.h"
#include "kernels/huge_pages.h"
#include "kernels/peak_flops.h"
#include "models/memory_estimate.h"

namespace ablate::bench::run {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::string format_duration(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  long total = std::lround(s);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", total / 3600, total / 60 % 60, total % 60);
  return buf;
}

// The state of one run's loop: the timed parts, the evaluations, the curve.
class Loop {
 public:
  Loop(PreparedRun& run, RunResult& result)
      : run_(run), cfg_(run.config), result_(result),
        schedule_(EvaluationSchedule::of(run.config, run.data.train.count())),
        start_(Clock::now()),
        stopping_({cfg_.patience, cfg_.patience_increase, cfg_.improvement_threshold}) {
    result_.metrics.time_to_accuracy.target = cfg_.target_accuracy;
  }

  // Trains from iteration `first` (0, or a resumed snapshot's) to the configured length.
  void run(datasets::BatchLoader& loader, std::int64_t first = 0) {
    start_ = Clock::now() - std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seg_.loop_wall_s));
    const std::int64_t progress_every = std::max<std::int64_t>(1, cfg_.iterations / 20);
    for (it_ = first; it_ < cfg_.iterations; ++it_) {
      double loss = 0;
      std::optional<double> batch_accuracy;
      std::optional<kernels::TraceRecorder::Span> step_span;
      if (run_.trace) step_span.emplace(*run_.trace, "step " + std::to_string(it_ + 1), "step");
      try {
        faults_.begin();
        auto t0 = Clock::now();
        std::optional<kernels::TraceRecorder::Span> fetch_span;
        if (run_.trace) fetch_span.emplace(*run_.trace, "next batch", "data");
        datasets::Batch batch = loader.next();
        fetch_span.reset();
        double fetch = seconds_since(t0);
        if (schedule_.batch_accuracy_due(it_)) {
          faults_.pause();
          batch_accuracy = evaluate_batch(batch);
          faults_.resume();
        }
        auto t1 = Clock::now();
        loss = global_loss(cfg_, run_.engine->train_step(batch.x, batch.labels, it_));
        seg_.train_s += fetch + seconds_since(t1);
        faults_.end();
      } catch (const graph::DivergenceError& e) {
        // A non-finite loss (every strategy checks it before its update) or a NaN or inf
        // gradient with a finite loss (graph/optim/gradient_check.h): a result, "diverged".
        diverge(e.what());
        break;
      } catch (const std::runtime_error& e) {
        // Anything else (a data file that fails mid-run, a backend error) is a failed run: its
        // record says so, with what happened where.
        result_.status = "failed";
        result_.error = "iteration " + std::to_string(it_) + ": " + e.what();
        break;
      }
      const std::int64_t done = it_ + 1;
      last_loss_ = loss;
      if (!std::isfinite(loss)) {
        diverge("loss is " + std::to_string(loss) + " at iteration " + std::to_string(it_));
        result_.curve.push_back({done, seg_.train_s, loss, {}, {}, {}});
        ++it_;
        break;
      }
      if (done == 1 || done % cfg_.curve_every == 0 || done == cfg_.iterations || batch_accuracy)
        result_.curve.push_back({done, seg_.train_s, loss, {}, {}, batch_accuracy});
      if (!cfg_.quiet && (done % progress_every == 0 || done == 1)) progress(done, loss);
      evaluate_after(done);
      step_span.reset();
      if (cfg_.snapshot_every > 0 && done % cfg_.snapshot_every == 0 && done < cfg_.iterations) write_snapshot(done);
      if (const int sig = stop_signal()) {
        seg_.loop_wall_s = seconds_since(start_);
        write_snapshot(done);
        result_.status = "interrupted";
        result_.error = std::string(sig == SIGINT ? "SIGINT" : "SIGTERM") + " after iteration " + std::to_string(done) +
                        "; snapshot " + cfg_.snapshot + " (continue with --resume " + cfg_.snapshot + ")";
        ++it_;
        break;
      }
      if (stopping_.should_stop(it_)) {
        stopped_early_ = true;
        if (!cfg_.quiet) std::printf("early stop at iteration %lld: patience %g reached\n", static_cast<long long>(done), stopping_.patience());
        ++it_;
        break;
      }
    }
    seg_.loop_wall_s = seconds_since(start_);
    if (result_.status == "completed") {
      if (last_test_iteration_ == it_) {
        seg_.final_test_in_loop = true;
      } else {
        test(it_, false);
      }
      seg_.final_test_s = last_test_.seconds;
      if (cfg_.snapshot_every > 0) write_snapshot(it_);
    }
  }

  // The engine's state and the loop's (run_snapshot.h), written atomically to `path`
  // (cfg.snapshot, or cfg.snapshot_initial before the first step).
  void write_snapshot(std::int64_t done) { write_snapshot(done, cfg_.snapshot); }
  void write_snapshot(std::int64_t done, const std::string& path) {
    if (cfg_.rank != 0) return;  // --distributed: the ranks hold the same state; rank 0 saves it
    graph::Checkpoint c;
    graph::capture_engine_state(*run_.engine, c);
    auto& m = c.metadata;
    m["fingerprint"] = snapshot_fingerprint(cfg_);
    m["iteration"] = std::to_string(done);
    m["curve"] = encode_curve(result_.curve);
    m["train_s"] = exact(seg_.train_s);
    m["batch_eval_s"] = exact(seg_.batch_eval_s);
    m["validation_s"] = exact(seg_.validation_s);
    m["protocol_test_s"] = exact(seg_.protocol_test_s);
    m["protocol_tests"] = std::to_string(seg_.protocol_tests);
    m["curve_test_s"] = exact(seg_.curve_test_s);
    m["loop_wall_s"] = exact(seconds_since(start_));
    m["last_loss"] = exact(last_loss_);
    m["last_test_accuracy"] = exact(last_test_.accuracy);
    m["last_test_loss"] = exact(last_test_.loss);
    m["last_test_iteration"] = std::to_string(last_test_iteration_);
    m["test_total_s"] = exact(test_total_s_);
    m["test_passes"] = std::to_string(test_passes_);
    m["validations"] = std::to_string(validations_);
    m["test_at_best"] = test_at_best_ ? exact(*test_at_best_) : "nan";
    m["patience"] = exact(stopping_.patience());
    m["best_error"] = exact(stopping_.best_error());
    m["best_iteration"] = std::to_string(stopping_.best_iteration());
    const TimeToAccuracy& t = result_.metrics.time_to_accuracy;
    m["tta_reached"] = t.reached ? "1" : "0";
    m["tta_iteration"] = std::to_string(t.iteration);
    m["tta_train_s"] = exact(t.train_s);
    m["tta_framework_train_s"] = exact(t.framework_train_s);
    m["tta_accuracy"] = exact(t.accuracy);
    graph::write_checkpoint(path, c);
    if (!cfg_.quiet) {
      std::printf("snapshot after iteration %lld: %s\n", static_cast<long long>(done), path.c_str());
      std::fflush(stdout);
    }
    // Crash tests: ABLATE_KILL_AFTER_SNAPSHOT=N kills the process (SIGKILL, nothing flushed or
    // cleaned up) right after the snapshot of iteration N, as a power cut would.
    if (const char* kill_at = std::getenv("ABLATE_KILL_AFTER_SNAPSHOT"); kill_at && std::atoll(kill_at) == done)
      std::raise(SIGKILL);
  }

  // Restores the loop's state from a snapshot (the engine's is restored by the caller);
  // returns the iteration to continue from.
  std::int64_t restore(const graph::Checkpoint& c, const std::string& name) {
    const auto& m = c.metadata;
    result_.curve = decode_curve(c.meta("curve"), name);
    seg_.train_s = meta_double(m, "train_s", name);
    seg_.batch_eval_s = meta_double(m, "batch_eval_s", name);
    seg_.validation_s = meta_double(m, "validation_s", name);
    seg_.curve_test_s = m.count("curve_test_s") ? meta_double(m, "curve_test_s", name) : 0;  // absent before --curve-points
    seg_.protocol_test_s = meta_double(m, "protocol_test_s", name);
    seg_.protocol_tests = meta_int(m, "protocol_tests", name);
    seg_.loop_wall_s = meta_double(m, "loop_wall_s", name);
    last_loss_ = meta_double(m, "last_loss", name);
    last_test_.accuracy = meta_double(m, "last_test_accuracy", name);
    last_test_.loss = meta_double(m, "last_test_loss", name);
    last_test_iteration_ = meta_int(m, "last_test_iteration", name);
    test_total_s_ = meta_double(m, "test_total_s", name);
    test_passes_ = meta_int(m, "test_passes", name);
    validations_ = meta_int(m, "validations", name);
    const double at_best = meta_double(m, "test_at_best", name);
    if (!std::isnan(at_best)) test_at_best_ = at_best;
    stopping_.restore(meta_double(m, "patience", name), meta_double(m, "best_error", name),
                      meta_int(m, "best_iteration", name));
    TimeToAccuracy& t = result_.metrics.time_to_accuracy;
    t.reached = meta_int(m, "tta_reached", name) != 0;
    t.iteration = meta_int(m, "tta_iteration", name);
    t.train_s = meta_double(m, "tta_train_s", name);
    t.framework_train_s = meta_double(m, "tta_framework_train_s", name);
    t.accuracy = meta_double(m, "tta_accuracy", name);
    const std::int64_t iteration = meta_int(m, "iteration", name);
    if (iteration < 0 || iteration > cfg_.iterations)
      throw std::invalid_argument("snapshot " + name + " is at iteration " + std::to_string(iteration) +
                                  ", outside this run's " + std::to_string(cfg_.iterations) + " iterations");
    return iteration;
  }

  void fill_metrics() {
    RunMetrics& m = result_.metrics;
    m.iterations_done = it_;
    m.segments = seg_;
    m.uniform = uniform_timing(seg_);
    m.has_framework_timing = has_framework_timing(cfg_.framework);
    if (m.has_framework_timing) m.framework = framework_timing(cfg_.framework, seg_);
    m.timing = cfg_.timing;
    const TimingFigures& shown = cfg_.timing == Timing::framework ? m.framework : m.uniform;
    m.train_time_s = shown.train_s;
    m.test_time_s = shown.test_s;
    m.test_time_total_s = test_total_s_;
    m.test_passes = test_passes_;
    const bool tested = result_.status == "completed";
    m.accuracy = tested ? last_test_.accuracy : 0;
    m.test_loss = tested ? last_test_.loss : 0;
    m.minor_faults = faults_.minor();
    m.minor_faults_first_step = faults_.first_step_minor();
    m.minor_faults_per_step = faults_.minor_per_step();
    m.median_minor_faults_per_step = faults_.median_minor_per_step();
    m.major_faults = faults_.major();
    m.images_per_s = seg_.train_s > 0 ? static_cast<double>(it_ * cfg_.batch) / seg_.train_s : 0;
    if (validations_ > 0) {
      EarlyStoppingResult e;
      e.best_validation_error = stopping_.best_error();
      e.best_iteration = stopping_.best_iteration() + 1;
      e.test_accuracy_at_best = test_at_best_;
      e.stopped_early = stopped_early_;
      e.patience = stopping_.patience();
      e.validations = validations_;
      m.early_stopping = e;
    }
  }

 private:
  double evaluate_batch(const datasets::Batch& batch) {
    auto t0 = Clock::now();
    graph::EvalResult r = run_.engine->evaluate(batch.x, batch.labels);
    // --distributed: the global batch's accuracy, from every rank's slice
    const double correct = sum_over_ranks(cfg_, static_cast<double>(r.correct));
    seg_.batch_eval_s += seconds_since(t0);
    return correct / static_cast<double>(batch.labels.shape()[0] * cfg_.ranks);
  }

  void diverge(const std::string& error) {
    result_.status = "diverged";
    result_.error = error;
  }

  void progress(std::int64_t done, double loss) {
    double ips = static_cast<double>(done * cfg_.batch) / seg_.train_s;
    double eta = seconds_since(start_) / static_cast<double>(done) * static_cast<double>(cfg_.iterations - done);
    std::printf("iter %7lld/%lld  loss %.4f  lr %.6g  %7.0f img/s  ETA %s\n", static_cast<long long>(done),
                static_cast<long long>(cfg_.iterations), loss, graph::learning_rate(cfg_.optimizer.lr, done - 1), ips,
                format_duration(eta).c_str());
    std::fflush(stdout);
  }

  CurvePoint& point(std::int64_t done) {
    if (result_.curve.empty() || result_.curve.back().iteration != done)
      result_.curve.push_back({done, seg_.train_s, last_loss_, {}, {}, {}});
    return result_.curve.back();
  }

  // Validation, Theano's test at each new best, and the recipe's interval tests.
  void evaluate_after(std::int64_t done) {
    bool tested = false;
    if (schedule_.validation_due(done)) {
      TestSummary v =
          test_pass(*run_.engine, run_.validation, run_.test_transform, cfg_.test_batch, 0, run_.dtype, test_shard(cfg_));
      seg_.validation_s += v.seconds;
      ++validations_;
      const double error = 1 - v.accuracy;
      point(done).validation_error = error;
      const bool best = stopping_.validated(it_, error);
      if (!cfg_.quiet) {
        std::printf("valid %7lld: error %.4f%s  (%lld images, %.2f s; patience %g)\n", static_cast<long long>(done),
                    error, best ? " (best)" : "", static_cast<long long>(v.images), v.seconds, stopping_.patience());
        std::fflush(stdout);
      }
      if (best && stopping_.enabled()) {
        test(done, true);
        test_at_best_ = last_test_.accuracy;
        tested = true;
      }
    }
    if (!tested && schedule_.test_due(done)) test(done, true);
    if (curve_point_due(done) && !point(done).test_accuracy) curve_test(done);
  }

  // --curve-points N: the N-1 points round(k * iterations / N), k = 1..N-1, before the end (the
  // final test is the N-th), each at most once however short the run.
  bool curve_point_due(std::int64_t done) const {
    const std::int64_t n = cfg_.curve_points, total = cfg_.iterations;
    if (n < 2 || done >= total) return false;
    for (std::int64_t k = 1; k < n; ++k)
      if (std::max<std::int64_t>(1, (k * total + n / 2) / n) == done) return true;
    return false;
  }

  // A test pass for the curve alone: its accuracy on the curve, its time in curve_test_s (outside
  // every training time, the recipe's test time and time-to-accuracy); the reported accuracy
  // stays the recipe's and the final test's.
  void curve_test(std::int64_t done) {
    std::optional<kernels::TraceRecorder::Span> span;
    if (run_.trace) span.emplace(*run_.trace, "curve test after " + std::to_string(done), "test");
    const TestSummary t = test_pass(*run_.engine, run_.data.test, run_.test_transform, cfg_.test_batch,
                                    cfg_.test_iterations, run_.dtype, test_shard(cfg_));
    seg_.curve_test_s += t.seconds;
    point(done).test_accuracy = t.accuracy;
    if (!cfg_.quiet) {
      std::printf("curve %7lld: accuracy %.4f  loss %.4f  (%lld images, %.2f s)\n", static_cast<long long>(done),
                  t.accuracy, t.loss, static_cast<long long>(t.images), t.seconds);
      std::fflush(stdout);
    }
  }

  // The framework's training time so far, before a test pass begins (for time-to-accuracy).
  double framework_train_so_far() const {
    if (!has_framework_timing(cfg_.framework)) return 0;
    TimingSegments now = seg_;
    now.loop_wall_s = seconds_since(start_);
    now.final_test_s = 0;
    now.final_test_in_loop = false;
    return framework_timing(cfg_.framework, now).train_s;
  }

  void test(std::int64_t done, bool in_recipe) {
    const double framework_s = framework_train_so_far();
    std::optional<kernels::TraceRecorder::Span> span;
    if (run_.trace) span.emplace(*run_.trace, "test after " + std::to_string(done), "test");
    last_test_ = test_pass(*run_.engine, run_.data.test, run_.test_transform, cfg_.test_batch, cfg_.test_iterations,
                           run_.dtype, test_shard(cfg_));
    last_test_iteration_ = done;
    test_total_s_ += last_test_.seconds;
    ++test_passes_;
    if (in_recipe) {
      seg_.protocol_test_s += last_test_.seconds;
      ++seg_.protocol_tests;
    }
    point(done).test_accuracy = last_test_.accuracy;
    const bool reached = result_.metrics.time_to_accuracy.observe(last_test_.accuracy, done, seg_.train_s, framework_s);
    if (!cfg_.quiet) {
      std::printf("test  %7lld: accuracy %.4f  loss %.4f  (%lld images, %.2f s)%s\n", static_cast<long long>(done),
                  last_test_.accuracy, last_test_.loss, static_cast<long long>(last_test_.images), last_test_.seconds,
                  reached ? ("  target " + number(cfg_.target_accuracy) + " reached").c_str() : "");
      std::fflush(stdout);
    }
  }

  PreparedRun& run_;
  const RunConfig& cfg_;
  RunResult& result_;
  EvaluationSchedule schedule_;
  Clock::time_point start_;
  EarlyStopping stopping_;
  TimingSegments seg_;
  StepFaults faults_;  // of the timed steps this process trained (not carried by a snapshot)
  std::int64_t it_ = 0;
  double last_loss_ = 0;
  TestSummary last_test_;
  std::int64_t last_test_iteration_ = -1;
  double test_total_s_ = 0;
  std::int64_t test_passes_ = 0, validations_ = 0;
  std::optional<double> test_at_best_;
  bool stopped_early_ = false;
};

}  // namespace

RunResult train_and_test(RunConfig config, datasets::TrainTest data) {
  RunResult result;
  std::unique_ptr<PreparedRun> run = prepare_run(std::move(config), std::move(data));
  const RunConfig& cfg = run->config;
  result.config = cfg;
  result.environment = capture_environment();
  fill_resolved(*run, result.resolved);

  Loop loop(*run, result);
  std::int64_t first = 0;
  if (!cfg.resume.empty()) {
    const graph::Checkpoint snapshot = graph::read_checkpoint(cfg.resume);
    check_fingerprint(snapshot.meta("fingerprint"), cfg, cfg.resume);
    graph::restore_engine_state(*run->engine, snapshot);
    first = loop.restore(snapshot, cfg.resume);
    result.resolved["resumed_from"] = cfg.resume + " at iteration " + std::to_string(first);
  }

  datasets::LoaderOptions lo;
  lo.first_batch = first;
  lo.batch = cfg.batch;
  lo.shuffle = cfg.shuffle;
  lo.seed = cfg.seed;
  lo.dtype = run->dtype;
  lo.shard = cfg.rank;
  lo.shards = cfg.ranks;
  auto data_parallel = start_data_parallel(cfg, *run->engine);
  datasets::BatchLoader loader(run->data.train, run->transform, lo);

  if (!cfg.quiet && run->plan) {
    if (!run->plan->note.empty()) std::printf("plan: %s\n", run->plan->note.c_str());
    std::printf("plan of %s per layer (%s; %.3f s at start-up):\n%s", run->spec.name.c_str(),
                run->plan->source.c_str(), run->plan->startup_s, run->plan->plan.table().c_str());
  }
  if (!cfg.quiet) {
    std::printf("training %s (%s) on %s: %s strategy, %s backend, %d thread(s), %s, batch %lld, %lld iterations%s\n",
                run->spec.name.c_str(), cfg.framework.c_str(), run->data.train.name.c_str(), run->engine->strategy().c_str(),
                run->backend->name().c_str(), run->backend->threads(), kernels::dtype_name(cfg.precision),
                static_cast<long long>(cfg.batch), static_cast<long long>(cfg.iterations),
                run->validation.count() > 0
                    ? (", " + std::to_string(run->validation.count()) + " images held out for validation").c_str()
                    : "");
    if (!run->spec.note.empty()) std::printf("model %s: %s\n", run->spec.source.c_str(), run->spec.note.c_str());
    std::fflush(stdout);
  }

  if (!cfg.snapshot_initial.empty()) loop.write_snapshot(0, cfg.snapshot_initial);  // the weights before step 1
  // The FMA probe before the run and again after it, the higher taken (as bench does): one
  // reading slowed by another load or a lower clock had given MFUs above 100%.
  auto probe = [&] {
    return run->backend->device() == kernels::Device::cpu ? kernels::measure_peak_flops_at(run->backend->threads())
                                                          : 0.0;
  };
  const double peak_before = probe();
  ResourceMonitor monitor;
  if (run->backend->device() != kernels::Device::cpu) monitor.watch_device(&run->backend->allocator());
  kernels::cpu_allocator().reset_peak();
  auto alloc_before = kernels::cpu_allocator().stats();
  monitor.start();
  install_stop_handlers();
  if (!cfg.quiet && first > 0)
    std::printf("resuming from %s at iteration %lld\n", cfg.resume.c_str(), static_cast<long long>(first));
  loop.run(loader, first);
  ResourceSummary usage = monitor.stop();
  auto alloc_after = kernels::cpu_allocator().stats();

  loop.fill_metrics();
  RunMetrics& m = result.metrics;
  m.peak_rss_bytes = std::max(usage.peak_rss_bytes, process_rss_bytes());
  m.huge_page_bytes = kernels::process_huge_page_bytes();
  m.cpu_util = usage.cpu_util;
  m.disturbance = usage.disturbance;    // others' CPU and steal while training
  m.disturbed_above = disturbed_above();
  m.peak_device_bytes = usage.peak_device_bytes;
  m.peak_tensor_bytes = alloc_after.peak_bytes;
  m.tensor_allocations = alloc_after.allocations - alloc_before.allocations;
  result.resources = monitor.samples();
  result.engine = run->engine->report();
  for (const auto& [name, value] : run->backend->choices()) result.resolved["backend." + name] = value;
  fill_mfu(*run, std::max(peak_before, probe()), m);
  m.memory_estimate_bytes =
      models::estimate_training_memory(run->spec, cfg.batch, run->dtype, cfg.optimizer.type).total();
  finish_profile(*run, result);
  record_distributed(cfg, data_parallel.get(), result);
  return result;
}

}  // namespace ablate::bench::run
