// The assembly of a run (prepared_run.h): validation split, length, backend, model, transforms,
// engine.
#include "bench/run/prepared_run.h"

#include <stdexcept>
#include <string>
#include <vector>

#include "bench/run/distributed_run.h"
#include "bench/run/run_reporting.h"
#include "kernels/profiling_backend.h"
#include "kernels/registry.h"

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
  if (cfg.deterministic && !run->backend->make_deterministic())
    throw std::invalid_argument("--deterministic: backend '" + cfg.backend + "' cannot promise bit-identical runs (" +
                                run->backend->library_version() + ")");
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
  check_memory(*run);

  graph::EngineOptions options;
  options.dtype = run->dtype;
  options.batch = local_batch(cfg);  // --distributed: this rank's slice of the global batch
  options.seed = cfg.seed;
  options.first_sample = cfg.rank * local_batch(cfg);  // --distributed: the slice's dropout masks
  options.optimizer = cfg.optimizer;
  options.weight_average_decay = cfg.weight_average_decay;
  options.caching_allocator = cfg.caching_allocator;
  options.per_sample = cfg.per_sample;
  options.disabled_passes = cfg.disabled_passes;
  options.executor = cfg.executor;
  options.inter_op_threads = cfg.inter_op_threads;
  kernels::Backend* engine_backend = run->backend.get();
  if (!cfg.profile.empty()) {
    run->trace = std::make_unique<kernels::TraceRecorder>();
    run->profiled = std::make_unique<kernels::ProfilingBackend>(*run->backend, *run->trace);
    engine_backend = run->profiled.get();
  }
  run->engine = graph::make_engine(cfg.strategy, run->spec, *engine_backend, options);
  return run;
}

}  // namespace ablate::bench::run

