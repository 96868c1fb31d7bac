// Warm-up measurement and the common length factor of `ablate compare --budget`.
#include "bench/experiments/compare_budget.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <stdexcept>

#include "bench/experiments/validation_cap.h"
#include "bench/run/evaluation_schedule.h"
#include "bench/run/prepared_run.h"
#include "bench/run/test_pass.h"
#include "datasets/dataset_registry.h"
#include "datasets/loader.h"

namespace ablate::bench::experiments {

namespace {
using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }
}  // namespace

WarmupMeasure measure_warmup(const run::RunConfig& config, double seconds, int warmup_steps) {
  WarmupMeasure m;
  auto t0 = Clock::now();
  datasets::TrainTest data = datasets::load_dataset(config.dataset, config.data_dir, config.seed);
  run::RunConfig fitted = config;
  std::string note;
  cap_validation(fitted, data, note);  // as the run itself will (compare_plan.h)
  std::unique_ptr<run::PreparedRun> run = run::prepare_run(fitted, std::move(data));
  m.setup_s = seconds_since(t0);
  m.train_count = run->data.train.count();
  m.test_count = run->data.test.count();
  m.validation_count = run->validation.count();

  datasets::LoaderOptions lo;
  lo.batch = run->config.batch;
  lo.shuffle = run->config.shuffle;
  lo.seed = run->config.seed;
  lo.dtype = run->dtype;
  datasets::BatchLoader loader(run->data.train, run->transform, lo);
  std::int64_t it = 0;
  auto step = [&] {
    datasets::Batch b = loader.next();
    run->engine->train_step(b.x, b.labels, it++);
  };
  for (int i = 0; i < warmup_steps; ++i) step();  // first touch of every buffer, first calls: not timed
  auto t1 = Clock::now();
  std::int64_t steps = 0;
  while (steps < 2 || seconds_since(t1) < seconds) {
    step();
    ++steps;
  }
  m.train_images_per_s = static_cast<double>(steps * run->config.batch) / seconds_since(t1);

  const std::int64_t tb = run->config.test_batch;
  const std::int64_t batches = std::max<std::int64_t>(1, (1000 + tb - 1) / tb);
  run::TestSummary t = run::test_pass(*run->engine, run->data.test, run->test_transform, tb, batches, run->dtype);
  m.eval_images_per_s = static_cast<double>(t.images) / std::max(t.seconds, 1e-9);
  return m;
}

std::string to_text(const WarmupMeasure& m) {
  std::ostringstream out;
  out.precision(17);
  out << "setup_s " << m.setup_s << "\ntrain_images_per_s " << m.train_images_per_s << "\neval_images_per_s "
      << m.eval_images_per_s << "\ntrain_count " << m.train_count << "\ntest_count " << m.test_count
      << "\nvalidation_count " << m.validation_count << "\n";
  return out.str();
}

WarmupMeasure warmup_from_text(const std::string& text) {
  std::map<std::string, double> v;
  std::istringstream in(text);
  std::string key;
  double value;
  while (in >> key >> value) v[key] = value;
  for (const char* k : {"setup_s", "train_images_per_s", "eval_images_per_s", "train_count", "test_count"})
    if (!v.count(k)) throw std::runtime_error(std::string("warm-up result lacks ") + k);
  WarmupMeasure m;
  m.setup_s = v["setup_s"];
  m.train_images_per_s = v["train_images_per_s"];
  m.eval_images_per_s = v["eval_images_per_s"];
  m.train_count = static_cast<std::int64_t>(v["train_count"]);
  m.test_count = static_cast<std::int64_t>(v["test_count"]);
  m.validation_count = static_cast<std::int64_t>(v["validation_count"]);
  return m;
}

double estimate_seconds(const run::RunConfig& unscaled, const WarmupMeasure& m, double factor) {
  run::RunConfig c = unscaled;
  run::apply_length_scale(c, factor);
  run::resolve_length(c, m.train_count);
  const auto iters = c.iterations;
  run::EvaluationSchedule schedule = run::EvaluationSchedule::of(c, m.train_count);
  const double test_images =
      static_cast<double>(c.test_iterations > 0 ? c.test_iterations * c.test_batch : m.test_count);
  // The recipe's, at most one more at the end, and --curve-points' (at most one per iteration before the end).
  const std::int64_t curve_tests = std::max<std::int64_t>(0, std::min(c.curve_points - 1, iters - 1));
  const std::int64_t tests = schedule.tests_in(iters) + 1 + curve_tests;
  const std::int64_t validations = c.validation_interval > 0 ? iters / c.validation_interval : 0;
  const std::int64_t best_tests = c.patience > 0 ? validations : 0;  // at most one per validation
  const std::int64_t batch_evals = c.train_accuracy_interval > 0 ? (iters - 1) / c.train_accuracy_interval + 1 : 0;
  const double eval_images = static_cast<double>(tests + best_tests) * test_images +
                             static_cast<double>(validations * m.validation_count + batch_evals * c.batch);
  const double train_images = static_cast<double>(iters * c.batch);
  return m.setup_s + train_images / std::max(m.train_images_per_s, 1e-9) +
         eval_images / std::max(m.eval_images_per_s, 1e-9);
}

FactorChoice choose_factor(const std::vector<run::RunConfig>& unscaled, const std::vector<WarmupMeasure>& measures,
                           double budget_s) {
  auto total = [&](double f) {
    double s = 0;
    for (std::size_t i = 0; i < unscaled.size(); ++i) s += estimate_seconds(unscaled[i], measures[i], f);
    return s;
  };
  FactorChoice choice;
  if (total(1) <= budget_s) {
    choice.estimate_s = total(1);
    return choice;
  }
  const double smallest = 1e-6;  // every run down to its shortest length (one iteration)
  if (total(smallest) > budget_s) {
    choice.factor = smallest;
    choice.estimate_s = total(smallest);
    choice.fits = false;
    return choice;
  }
  double lo = smallest, hi = 1;  // total(lo) fits, total(hi) does not
  for (int i = 0; i < 60; ++i) {
    double mid = std::sqrt(lo * hi);
    (total(mid) <= budget_s ? lo : hi) = mid;
  }
  // Round down to two significant digits, so the factor prints as it is used.
  const double unit = std::pow(10.0, std::floor(std::log10(lo)) - 1);
  choice.factor = std::max(smallest, std::floor(lo / unit + 1e-9) * unit);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g", choice.factor);
  choice.factor = std::strtod(buf, nullptr);
  if (total(choice.factor) > budget_s) choice.factor = lo;
  choice.estimate_s = total(choice.factor);
  return choice;
}

}  // namespace ablate::bench::experiments
