// One pass over the test set (test_pass.h): the images in order, in batches of `batch`
// (the last one shorter), each through the run's test transform and the engine's evaluate;
// accuracy and mean loss over the images, and the pass's wall time. Every framework's
// evaluation protocol (test interval, batches, whole set or Caffe's test_iter) calls this.
// Sharded (a data-parallel run): every ranks-th batch from the rank's own, then one all-reduce.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <stdexcept>
#include <vector>

#include "bench/run/test_pass.h"
#include "graph/distributed/communicator.h"

namespace ablate::bench::run {

TestSummary test_pass(graph::Engine& engine, const datasets::ImageSet& test, const datasets::Transform& transform,
                      std::int64_t batch, std::int64_t batches, kernels::DType dtype, TestShard shard) {
  if (test.count() == 0) throw std::invalid_argument("test set " + test.name + " is empty");
  if (shard.ranks < 1 || shard.rank < 0 || shard.rank >= shard.ranks)
    throw std::invalid_argument("test pass shard " + std::to_string(shard.rank) + " of " + std::to_string(shard.ranks) +
                                ": expected 0 <= rank < ranks");
  int c = test.channels, h = test.height, w = test.width;
  transform.output_shape(c, h, w);
  std::int64_t total = batches > 0 ? batches * batch : test.count();
  kernels::Tensor x({batch, c, h, w}, dtype), labels({batch}, kernels::DType::i32);
  std::vector<std::int64_t> idx(static_cast<std::size_t>(batch));
  TestSummary s;
  double loss_sum = 0;
  std::int64_t correct = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (std::int64_t start = shard.rank * batch; start < total; start += shard.ranks * batch) {
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
  if (shard.ranks > 1) {
    double sums[2] = {loss_sum, static_cast<double>(correct)};  // counts below 2^53: exact
    graph::distributed::allreduce_sum("mpi", sums, 2, kernels::DType::f64);
    loss_sum = sums[0];
    correct = static_cast<std::int64_t>(std::llround(sums[1]));
  }
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  s.images = total;
  s.accuracy = static_cast<double>(correct) / static_cast<double>(total);
  s.loss = loss_sum / static_cast<double>(total);
  return s;
}

}  // namespace ablate::bench::run
