// The assembly of a run: everything it needs before its first step, built from a resolved
// RunConfig and the loaded data set. The validation split is held out of the training set
// (TF's 5,000 and Theano's 10,000 images), the length resolved on what is left, the
// transforms fitted on the training part, the backend and the model built, the input shape
// checked against the data, the memory estimate checked, and the engine of the chosen
// strategy built over the backend (observed by the profiler with --profile). With --plan the
// backend is a per-layer plan's, measured (or read) once the model is known.
#pragma once

#include <memory>
#include <optional>

#include "bench/run/plan_measure.h"
#include "bench/run/run_config.h"
#include "datasets/image_set.h"
#include "datasets/transforms.h"
#include "graph/engine.h"
#include "kernels/backend.h"
#include "kernels/trace_recorder.h"
#include "models/model_spec.h"

namespace ablate::bench::run {

// Not movable: the engine refers to the backend and the transforms may refer to the data.
struct PreparedRun {
  RunConfig config;
  datasets::TrainTest data;
  datasets::ImageSet validation;  // empty without validation_count
  std::unique_ptr<kernels::Backend> backend;
  // With --plan: the per-layer plan that `backend` (a kernels::PlannedBackend) executes, where
  // it came from and what it cost at start-up (plan_measure.h).
  std::optional<PlanResolution> plan;
  // With --profile: the recorder and the backend's observer (kernels/profiling_observer.h).
  std::unique_ptr<kernels::TraceRecorder> trace;
  std::unique_ptr<kernels::OpObserver> profiled;
  models::ModelSpec spec;
  datasets::Transform transform, test_transform;
  kernels::DType dtype = kernels::DType::f32;
  std::unique_ptr<graph::Engine> engine;
};

// Throws naming the bad part: a validation split larger than the training set, a model whose
// input does not match the data after its transform, a batch beyond the available memory.
std::unique_ptr<PreparedRun> prepare_run(RunConfig config, datasets::TrainTest data);

}  // namespace ablate::bench::run
