// The training loop shared by every framework and strategy: feeds batches from the loader
// into an Engine, tests at the configured interval, and measures what the study measured
// (training time, testing time, accuracy, CPU utilisation, peak memory) into a RunResult.
//
// Timing (uniform for all frameworks): train_time_s is the wall time of the training
// iterations, including waiting for the data loader, excluding test passes; test_time_s is
// the wall time of the final pass over the test set; test_time_total_s adds the
// intermediate test passes.
#pragma once

#include <functional>
#include <memory>

#include "bench/result_record.h"
#include "bench/run_config.h"
#include "datasets/image_set.h"
#include "datasets/transforms.h"
#include "graph/engine.h"

namespace ablate::bench {

struct TestSummary {
  double accuracy = 0, loss = 0, seconds = 0;
  std::int64_t images = 0;
};

// One pass over (part of) a test set in batches of `batch`; `batches` = 0 for all of it
// (Caffe's test_iter x batch_size; a count beyond the set wraps around as Caffe's does).
TestSummary test_pass(graph::Engine& engine, const datasets::ImageSet& test, const datasets::Transform& transform,
                      std::int64_t batch, std::int64_t batches, kernels::DType dtype);

// Trains and tests one configuration on `data`; progress lines go to stdout unless quiet.
// A loss that is not finite stops the run with status "diverged".
RunResult train_and_test(RunConfig config, const datasets::TrainTest& data);

}  // namespace ablate::bench
