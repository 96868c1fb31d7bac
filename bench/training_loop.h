// The training loop shared by every framework and strategy: feeds batches from the loader
// into an Engine, evaluates as the framework's recipe asks (test intervals in iterations or
// epochs, validation on a held-out split with Theano's early stopping, TF's batch accuracy),
// and measures what the study measured (training time, testing time, accuracy, CPU
// utilisation, peak memory) plus time-to-accuracy into a RunResult.
//
// Timing: every part of the run is timed apart (run_timing.h); the record carries the
// uniform figures (training = the training iterations, loader waits included, evaluations
// excluded; testing = the final pass) and each framework's own, and `--timing` picks the
// pair printed and stored as train_time_s / test_time_s.
#pragma once

#include <functional>
#include <memory>

#include "bench/result_record.h"
#include "bench/run_config.h"
#include "datasets/image_set.h"
#include "datasets/transforms.h"
#include "graph/engine.h"
#include "kernels/trace_recorder.h"
#include "models/model_spec.h"

namespace ablate::bench {

struct TestSummary {
  double accuracy = 0, loss = 0, seconds = 0;
  std::int64_t images = 0;
};

// One pass over (part of) a test set in batches of `batch`; `batches` = 0 for all of it
// (Caffe's test_iter x batch_size; a count beyond the set wraps around as Caffe's does).
TestSummary test_pass(graph::Engine& engine, const datasets::ImageSet& test, const datasets::Transform& transform,
                      std::int64_t batch, std::int64_t batches, kernels::DType dtype);

// Everything a run needs before its first step: the validation split held out of the
// training set, the length resolved on what is left, transforms, backend, model and engine.
// Not movable: the engine refers to the backend and the transforms may refer to the data.
struct PreparedRun {
  RunConfig config;
  datasets::TrainTest data;
  datasets::ImageSet validation;  // empty without validation_count
  std::unique_ptr<kernels::Backend> backend;
  // With --profile: the recorder and the backend's observer (kernels/profiling_observer.h).
  std::unique_ptr<kernels::TraceRecorder> trace;
  std::unique_ptr<kernels::OpObserver> profiled;
  models::ModelSpec spec;
  datasets::Transform transform, test_transform;
  kernels::DType dtype = kernels::DType::f32;
  std::unique_ptr<graph::Engine> engine;
};
std::unique_ptr<PreparedRun> prepare_run(RunConfig config, datasets::TrainTest data);

// Trains and tests one configuration on `data`; progress lines go to stdout unless quiet.
// A loss that is not finite stops the run with status "diverged".
RunResult train_and_test(RunConfig config, datasets::TrainTest data);

}  // namespace ablate::bench
