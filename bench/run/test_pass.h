// One pass over (part of) a test set, shared by every framework's evaluation protocol: the
// training loop's interval and final tests, validation passes, and compare's warm-up.
#pragma once

#include <cstdint>

#include "datasets/image_set.h"
#include "datasets/transforms.h"
#include "graph/engine.h"

namespace ablate::bench::run {

struct TestSummary {
  double accuracy = 0, loss = 0, seconds = 0;
  std::int64_t images = 0;
};

// One pass over (part of) a test set in batches of `batch`; `batches` = 0 for all of it
// (Caffe's test_iter x batch_size; a count beyond the set wraps around as Caffe's does).
TestSummary test_pass(graph::Engine& engine, const datasets::ImageSet& test, const datasets::Transform& transform,
                      std::int64_t batch, std::int64_t batches, kernels::DType dtype);

}  // namespace ablate::bench::run
