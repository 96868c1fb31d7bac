// The training loop: batches -> Engine::train_step, the recipe's evaluations, timing and monitoring.
#include "bench/training_loop.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "bench/distributed_run.h"
#include "bench/early_stopping.h"
#include "bench/environment.h"
#include "bench/evaluation_schedule.h"
#include "datasets/loader.h"
#include "kernels/registry.h"

namespace ablate::bench {

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

void check_input_shape(const models::ModelSpec& spec, const datasets::Transform& transform,
                       const datasets::ImageSet& set) {
  int c = set.channels, h = set.height, w = set.width;
  transform.output_shape(c, h, w);
  std::vector<int> got = {c, h, w};
  if (spec.input_shape != got) {
    auto str = [](const std::vector<int>& v) {
      std::string s;
      for (int x : v) s += (s.empty() ? "" : "x") + std::to_string(x);
      return s;
    };
    throw std::invalid_argument("model " + spec.source + " expects input " + str(spec.input_shape) + " but data set " +
                                set.name + " gives " + str(got) + " after transform '" + transform.name + "'");
  }
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ",") + s;
  return out;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// The state of one run's loop: the timed parts, the evaluations, the curve.
class Loop {
 public:
  Loop(PreparedRun& run, RunResult& result)
      : run_(run), cfg_(run.config), result_(result),
        schedule_(EvaluationSchedule::of(run.config, run.data.train.count())),
        stopping_({cfg_.patience, cfg_.patience_increase, cfg_.improvement_threshold}) {
    result_.metrics.time_to_accuracy.target = cfg_.target_accuracy;
  }

  void run(datasets::BatchLoader& loader) {
    start_ = Clock::now();
    const std::int64_t progress_every = std::max<std::int64_t>(1, cfg_.iterations / 20);
    for (it_ = 0; it_ < cfg_.iterations; ++it_) {
      double loss = 0;
      std::optional<double> batch_accuracy;
      try {
        auto t0 = Clock::now();
        datasets::Batch batch = loader.next();
        double fetch = seconds_since(t0);
        if (schedule_.batch_accuracy_due(it_)) batch_accuracy = evaluate_batch(batch);
        auto t1 = Clock::now();
        loss = global_loss(cfg_, run_.engine->train_step(batch.x, batch.labels, it_));
        seg_.train_s += fetch + seconds_since(t1);
      } catch (const std::runtime_error& e) {
        diverge(e.what());
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
      if (done == 1 || done % 10 == 0 || done == cfg_.iterations || batch_accuracy)
        result_.curve.push_back({done, seg_.train_s, loss, {}, {}, batch_accuracy});
      if (!cfg_.quiet && (done % progress_every == 0 || done == 1)) progress(done, loss);
      evaluate_after(done);
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
    }
  }

  void fill_metrics() {
    RunMetrics& m = result_.metrics;
    m.iterations_done = it_;
    m.segments = seg_;
    m.uniform = uniform_timing(seg_);
    m.has_framework_timing = has_framework_timing(cfg_.framework);
    if (m.has_framework_timing) m.framework = framework_timing(cfg_.framework, seg_);
    m.timing = cfg_.timing;
    const TimingFigures& shown = cfg_.timing == "framework" ? m.framework : m.uniform;
    m.train_time_s = shown.train_s;
    m.test_time_s = shown.test_s;
    m.test_time_total_s = test_total_s_;
    m.test_passes = test_passes_;
    const bool tested = result_.status == "completed";
    m.accuracy = tested ? last_test_.accuracy : 0;
    m.test_loss = tested ? last_test_.loss : 0;
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
    seg_.batch_eval_s += seconds_since(t0);
    return static_cast<double>(r.correct) / static_cast<double>(batch.labels.shape()[0]);
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
      TestSummary v = test_pass(*run_.engine, run_.validation, run_.test_transform, cfg_.test_batch, 0, run_.dtype);
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
    last_test_ = test_pass(*run_.engine, run_.data.test, run_.test_transform, cfg_.test_batch, cfg_.test_iterations,
                           run_.dtype);
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
  EarlyStopping stopping_;
  TimingSegments seg_;
  Clock::time_point start_;
  std::int64_t it_ = 0;
  double last_loss_ = 0;
  TestSummary last_test_;
  std::int64_t last_test_iteration_ = -1;
  double test_total_s_ = 0;
  std::int64_t test_passes_ = 0, validations_ = 0;
  std::optional<double> test_at_best_;
  bool stopped_early_ = false;
};

void fill_resolved(const PreparedRun& run, std::map<std::string, std::string>& r) {
  const RunConfig& c = run.config;
  r["strategy"] = run.engine->strategy();
  r["backend"] = run.backend->name();
  r["backend_version"] = run.backend->library_version();
  r["threads_applied"] = std::to_string(run.backend->threads());
  r["deterministic"] = run.backend->deterministic() ? "true" : "false";
  r["model_source"] = run.spec.source;
  r["transform"] = run.transform.name;
  r["test_transform"] = run.test_transform.name;
  r["train_images"] = std::to_string(run.data.train.count());
  r["validation_images"] = std::to_string(run.validation.count());
  r["timing"] = c.timing;
  r["timing_rule"] = framework_timing_rule(c.framework);
  r["weight_average_decay"] = number(c.weight_average_decay);
  r["caching_allocator"] = c.caching_allocator ? "true" : "false";
  r["per_sample"] = c.per_sample ? "true" : "false";
  r["disabled_passes"] = join(c.disabled_passes);
  r["executor"] = c.executor;
  r["inter_op_threads"] = std::to_string(c.inter_op_threads);
  r["unused_options"] = join(c.unused_options);
}

}  // namespace

TestSummary test_pass(graph::Engine& engine, const datasets::ImageSet& test, const datasets::Transform& transform,
                      std::int64_t batch, std::int64_t batches, kernels::DType dtype) {
  if (test.count() == 0) throw std::invalid_argument("test set " + test.name + " is empty");
  int c = test.channels, h = test.height, w = test.width;
  transform.output_shape(c, h, w);
  std::int64_t total = batches > 0 ? batches * batch : test.count();
  kernels::Tensor x({batch, c, h, w}, dtype), labels({batch}, kernels::DType::i32);
  std::vector<std::int64_t> idx(static_cast<std::size_t>(batch));
  TestSummary s;
  double loss_sum = 0;
  std::int64_t correct = 0;
  auto t0 = Clock::now();
  for (std::int64_t start = 0; start < total; start += batch) {
    std::int64_t n = std::min(batch, total - start);
    for (std::int64_t i = 0; i < n; ++i) {
      idx[static_cast<std::size_t>(i)] = (start + i) % test.count();
      labels.data<std::int32_t>()[i] = test.labels[static_cast<std::size_t>(idx[static_cast<std::size_t>(i)])];
    }
    kernels::Tensor xb = n == batch ? x : x.slice0(0, n);
    kernels::Tensor lb = n == batch ? labels : labels.slice0(0, n);
    transform.apply(test, idx.data(), n, 0, xb);
    graph::EvalResult r = engine.evaluate(xb, lb);
    loss_sum += r.loss * static_cast<double>(n);
    correct += r.correct;
  }
  s.seconds = seconds_since(t0);
  s.images = total;
  s.accuracy = static_cast<double>(correct) / static_cast<double>(total);
  s.loss = loss_sum / static_cast<double>(total);
  return s;
}

std::unique_ptr<PreparedRun> prepare_run(RunConfig config, datasets::TrainTest data) {
  auto run = std::make_unique<PreparedRun>();
  run->config = std::move(config);
  run->data = std::move(data);
  RunConfig& cfg = run->config;
  if (cfg.validation_count > 0) {
    if (cfg.validation_count >= run->data.train.count())
      throw std::invalid_argument("validation_count " + std::to_string(cfg.validation_count) + ": the training set " +
                                  run->data.train.name + " has only " + std::to_string(run->data.train.count()) +
                                  " images");
    run->validation = datasets::split_tail(run->data.train, cfg.validation_count, run->data.train.name + "/validation");
  }
  resolve_length(cfg, run->data.train.count());

  run->backend = kernels::make_backend(cfg.backend, cfg.threads);
  run->spec = models::load_model(cfg.model);
  // Statistics of fitted rules (mean image, global standardisation) come from the training
  // part only: the validation images were held out above.
  run->transform = datasets::parse_transform(cfg.transform, run->data.train, cfg.seed);
  run->test_transform = cfg.test_transform.empty()
                            ? run->transform
                            : datasets::parse_transform(cfg.test_transform, run->data.train, cfg.seed);
  check_input_shape(run->spec, run->transform, run->data.train);
  check_input_shape(run->spec, run->test_transform, run->data.test);
  run->dtype = kernels::parse_dtype(cfg.precision);

  graph::EngineOptions options;
  options.dtype = run->dtype;
  options.batch = local_batch(cfg);  // --distributed: this rank's slice of the global batch
  options.seed = cfg.seed;
  options.optimizer = cfg.optimizer;
  options.weight_average_decay = cfg.weight_average_decay;
  options.caching_allocator = cfg.caching_allocator;
  options.per_sample = cfg.per_sample;
  options.disabled_passes = cfg.disabled_passes;
  options.executor = cfg.executor;
  options.inter_op_threads = cfg.inter_op_threads;
  run->engine = graph::make_engine(cfg.strategy, run->spec, *run->backend, options);
  return run;
}

RunResult train_and_test(RunConfig config, datasets::TrainTest data) {
  RunResult result;
  std::unique_ptr<PreparedRun> run = prepare_run(std::move(config), std::move(data));
  const RunConfig& cfg = run->config;
  result.config = cfg;
  result.environment = capture_environment();
  fill_resolved(*run, result.resolved);

  datasets::LoaderOptions lo;
  lo.batch = cfg.batch;
  lo.shuffle = cfg.shuffle;
  lo.seed = cfg.seed;
  lo.dtype = run->dtype;
  lo.shard = cfg.rank;
  lo.shards = cfg.ranks;
  auto data_parallel = start_data_parallel(cfg, *run->engine);
  datasets::BatchLoader loader(run->data.train, run->transform, lo);

  if (!cfg.quiet) {
    std::printf("training %s (%s) on %s: %s strategy, %s backend, %d thread(s), %s, batch %lld, %lld iterations%s\n",
                run->spec.name.c_str(), cfg.framework.c_str(), run->data.train.name.c_str(), run->engine->strategy().c_str(),
                run->backend->name().c_str(), run->backend->threads(), cfg.precision.c_str(),
                static_cast<long long>(cfg.batch), static_cast<long long>(cfg.iterations),
                run->validation.count() > 0
                    ? (", " + std::to_string(run->validation.count()) + " images held out for validation").c_str()
                    : "");
    std::fflush(stdout);
  }

  ResourceMonitor monitor;
  kernels::cpu_allocator().reset_peak();
  auto alloc_before = kernels::cpu_allocator().stats();
  monitor.start();
  Loop loop(*run, result);
  loop.run(loader);
  ResourceSummary usage = monitor.stop();
  auto alloc_after = kernels::cpu_allocator().stats();

  loop.fill_metrics();
  RunMetrics& m = result.metrics;
  m.peak_rss_bytes = std::max(usage.peak_rss_bytes, process_rss_bytes());
  m.cpu_util = usage.cpu_util;
  m.peak_tensor_bytes = alloc_after.peak_bytes;
  m.tensor_allocations = alloc_after.allocations - alloc_before.allocations;
  result.resources = monitor.samples();
  result.engine = run->engine->report();
  record_distributed(cfg, data_parallel.get(), result);
  return result;
}

}  // namespace ablate::bench
