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
  std::int64_t images = 0;  // of the whole pass (every rank's, when sharded)
};

// Sharded evaluation in a data-parallel run: rank `rank` of `ranks` evaluates the
// batches b with b % ranks == rank, and the correct counts and loss sums are summed over the
// ranks (one all-reduce), so every rank gets the accuracy and loss of the whole pass. The
// batches are the unsharded pass's, so the counts are the same exactly (the loss up to the
// order of the sum). Collective: every rank calls it.
struct TestShard {
  int rank = 0, ranks = 1;
};

// One pass over (part of) a test set in batches of `batch`; `batches` = 0 for all of it
// (Caffe's test_iter x batch_size; a count beyond the set wraps around as Caffe's does).
// `seconds` is the pass's wall time on this rank, the reduction included.
TestSummary test_pass(graph::Engine& engine, const datasets::ImageSet& test, const datasets::Transform& transform,
                      std::int64_t batch, std::int64_t batches, kernels::DType dtype, TestShard shard = {});

}  // namespace ablate::bench::run
