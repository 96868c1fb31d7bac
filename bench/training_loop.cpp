// The training loop: batches -> Engine::train_step, periodic tests, timing and monitoring.
#include "bench/training_loop.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "bench/environment.h"
#include "datasets/loader.h"
#include "kernels/registry.h"
#include "models/model_spec.h"

namespace ablate::bench {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

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
  auto t0 = std::chrono::steady_clock::now();
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

RunResult train_and_test(RunConfig config, const datasets::TrainTest& data) {
  RunResult result;
  resolve_length(config, data.train.count());
  result.config = config;
  result.environment = capture_environment();

  auto backend = kernels::make_backend(config.backend, config.threads);
  models::ModelSpec spec = models::load_model(config.model);
  datasets::Transform transform = datasets::parse_transform(config.transform, data.train, config.seed);
  check_input_shape(spec, transform, data.train);
  kernels::DType dtype = kernels::parse_dtype(config.precision);

  graph::EngineOptions options;
  options.dtype = dtype;
  options.batch = config.batch;
  options.seed = config.seed;
  options.optimizer = config.optimizer;
  auto engine = graph::make_engine(config.strategy, spec, *backend, options);
  result.resolved["strategy"] = engine->strategy();
  result.resolved["backend"] = backend->name();
  result.resolved["backend_version"] = backend->library_version();
  result.resolved["threads_applied"] = std::to_string(backend->threads());
  result.resolved["deterministic"] = backend->deterministic() ? "true" : "false";
  result.resolved["model_source"] = spec.source;
  result.resolved["transform"] = transform.name;

  datasets::LoaderOptions lo;
  lo.batch = config.batch;
  lo.shuffle = config.shuffle;
  lo.seed = config.seed;
  lo.dtype = dtype;
  datasets::BatchLoader loader(data.train, transform, lo);

  if (!config.quiet)
    std::printf("training %s (%s) on %s: %s strategy, %s backend, %d thread(s), %s, batch %lld, %lld iterations\n",
                spec.name.c_str(), config.framework.c_str(), data.train.name.c_str(), engine->strategy().c_str(),
                backend->name().c_str(), backend->threads(), config.precision.c_str(),
                static_cast<long long>(config.batch), static_cast<long long>(config.iterations));

  ResourceMonitor monitor;
  kernels::cpu_allocator().reset_peak();
  auto alloc_before = kernels::cpu_allocator().stats();
  monitor.start();

  const std::int64_t progress_every = std::max<std::int64_t>(1, config.iterations / 20);
  double train_time = 0, test_time_total = 0;
  TestSummary last_test;
  bool tested_at_end = false;
  std::int64_t it = 0;
  for (; it < config.iterations; ++it) {
    auto t0 = std::chrono::steady_clock::now();
    double loss;
    try {
      datasets::Batch batch = loader.next();
      loss = engine->train_step(batch.x, batch.labels, it);
    } catch (const std::runtime_error& e) {
      result.status = "diverged";
      result.error = e.what();
      train_time += seconds_since(t0);
      break;
    }
    train_time += seconds_since(t0);
    const std::int64_t done = it + 1;
    if (!std::isfinite(loss)) {
      result.status = "diverged";
      result.error = "loss is " + std::to_string(loss) + " at iteration " + std::to_string(it);
      result.curve.push_back({done, train_time, loss, std::nullopt});
      ++it;
      break;
    }
    if (done == 1 || done % 10 == 0 || done == config.iterations)
      result.curve.push_back({done, train_time, loss, std::nullopt});
    if (!config.quiet && (done % progress_every == 0 || done == 1)) {
      double ips = static_cast<double>(done * config.batch) / train_time;
      double eta = train_time / static_cast<double>(done) * static_cast<double>(config.iterations - done);
      std::printf("iter %7lld/%lld  loss %.4f  lr %.6g  %7.0f img/s  ETA %s\n", static_cast<long long>(done),
                  static_cast<long long>(config.iterations), loss,
                  graph::learning_rate(config.optimizer.lr, it), ips, format_duration(eta).c_str());
      std::fflush(stdout);
    }
    bool interval_test = config.test_interval > 0 && done % config.test_interval == 0;
    if (interval_test || done == config.iterations) {
      last_test = test_pass(*engine, data.test, transform, config.test_batch, config.test_iterations, dtype);
      test_time_total += last_test.seconds;
      tested_at_end = done == config.iterations;
      if (result.curve.empty() || result.curve.back().iteration != done)
        result.curve.push_back({done, train_time, loss, std::nullopt});
      result.curve.back().test_accuracy = last_test.accuracy;
      if (!config.quiet) {
        std::printf("test  %7lld: accuracy %.4f  loss %.4f  (%lld images, %.2f s)\n", static_cast<long long>(done),
                    last_test.accuracy, last_test.loss, static_cast<long long>(last_test.images), last_test.seconds);
        std::fflush(stdout);
      }
    }
  }
  ResourceSummary usage = monitor.stop();
  auto alloc_after = kernels::cpu_allocator().stats();

  RunMetrics& m = result.metrics;
  m.iterations_done = it;
  m.train_time_s = train_time;
  m.test_time_s = tested_at_end ? last_test.seconds : 0;
  m.test_time_total_s = test_time_total;
  m.accuracy = tested_at_end ? last_test.accuracy : 0;
  m.test_loss = tested_at_end ? last_test.loss : 0;
  m.images_per_s = train_time > 0 ? static_cast<double>(it * config.batch) / train_time : 0;
  m.peak_rss_bytes = std::max(usage.peak_rss_bytes, process_rss_bytes());
  m.cpu_util = usage.cpu_util;
  m.peak_tensor_bytes = alloc_after.peak_bytes;
  m.tensor_allocations = alloc_after.allocations - alloc_before.allocations;
  result.resources = monitor.samples();
  return result;
}

}  // namespace ablate::bench
