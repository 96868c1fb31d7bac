// The assembly of a run (prepared_run.h): validation split, length, backend, model, transforms,
// engine.
#include "bench/run/prepared_run.h"

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/run/malloc_policy.h"
#include "bench/run/run_reporting.h"
#include "bench/run/strategy_switches.h"
#include "kernels/huge_pages.h"
#include "kernels/profiling_observer.h"

namespace ablate::bench::run {

namespace {

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

std::unique_ptr<PreparedRun> prepare_run(RunConfig config, datasets::TrainTest data) {
  apply_malloc_policy(config.malloc_policy);  // before the engine allocates anything
  kernels::set_host_huge_pages(config.huge_pages);
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

  run->backend = make_backend(cfg.backend);
  run->spec = models::load_model(cfg.model);
  if (cfg.no_random)  // --no-random: every dropout keeps everything (its mask is all ones)
    for (models::LayerSpec& layer : run->spec.layers)
      if (layer.type == "dropout") layer.params["keep"] = "1";
  // Statistics of fitted rules (mean image, global standardisation) come from the training
  // part only: the validation images were held out above.
  run->transform = datasets::parse_transform(cfg.transform, run->data.train, cfg.seed);
  run->test_transform = cfg.test_transform.empty()
                            ? run->transform
                            : datasets::parse_transform(cfg.test_transform, run->data.train, cfg.seed);
  if (cfg.no_random && run->transform.random)  // resolution replaced every random_* rule; a new random rule would land here
    throw std::invalid_argument("--no-random: the training transform '" + cfg.transform + "' makes random choices");
  check_input_shape(run->spec, run->transform, run->data.train);
  check_input_shape(run->spec, run->test_transform, run->data.test);
  run->dtype = cfg.precision;
  check_memory(*run);
  if (!cfg.plan.empty()) {
    const auto start = std::chrono::steady_clock::now();
    run->plan = resolve_plan(cfg, run->spec);
    run->backend = make_planned_backend(run->plan->plan, run->spec, cfg.backend, ops_one_at_a_time(cfg));
    run->plan->startup_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  if (!cfg.profile.empty()) {
    run->trace = std::make_unique<kernels::TraceRecorder>();
    run->profiled = std::make_unique<kernels::ProfilingObserver>(*run->trace, *run->backend);
    run->backend->set_observer(run->profiled.get());
  }
  run->engine = make_engine(cfg, run->spec, *run->backend);
  return run;
}

}  // namespace ablate::bench::run

