// Data-parallel training (Horovod, PyTorch DistributedDataParallel): every rank holds the same
// parameters, trains on its slice of the global batch, and before each update the gradients
// are averaged over the ranks, so every rank applies the update a single process would apply
// to the whole global batch (the mean loss over N equal slices is the mean of the slices'
// means: grad = (1/P) sum_r grad_r).
//
// Bucketing (Horovod's tensor fusion, DDP's gradient buckets): the gradients are packed in
// parameter order into buckets of at most `bucket_bytes` (a parameter larger than that is a
// bucket of its own), one all-reduce per bucket, so a step makes few large calls rather than
// one per tensor. The averaging is the Optimizer's gradient hook: it runs before the update
// of the layer-wise and dynamic strategies. The static strategy, whose updates are graph
// nodes, puts one all-reduce node per bucket between its gradient and apply nodes instead (as
// Horovod's DistributedOptimizer does in TensorFlow), through the same buckets and mean().
//
// State tensors (Engine::state_tensors: BatchNorm's running statistics) are averaged over the
// ranks in the same hook, that is after every step's forward has updated them and before the
// update, in one all-reduce of their own (counted in the stats), so every rank evaluates with
// the same statistics. Each rank's batch statistics are its slice's (as DDP without
// SyncBatchNorm; the loss of a BatchNorm model is then not the single process's). For the
// running mean the average is exact: the update is linear and the slices are equal, so the
// mean of the ranks' running means is the running mean of the global batch's mean. The running
// variance becomes the mean of the slices' unbiased variances, which leaves out the spread of
// the slices' means around the global mean (global variance = mean of the slice variances +
// variance of the slice means, up to the unbiasing factors). PyTorch's DDP instead broadcasts
// rank 0's buffers before each forward (broadcast_buffers=True), keeping rank 0's slice only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "graph/engine.h"

namespace ablate::graph::distributed {

struct DataParallelOptions {
  std::string allreduce = "mpi";               // mpi | ring (communicator.h)
  std::int64_t bucket_bytes = 25 << 20;        // DDP's default bucket_cap_mb = 25
};

// What one rank spent on the gradient all-reduces.
struct AllreduceStats {
  double seconds = 0;           // wall time in all-reduce calls (packing excluded)
  double pack_seconds = 0;      // packing, unpacking and the 1/P scaling
  std::int64_t calls = 0;       // all-reduce calls (buckets x steps)
  std::int64_t steps = 0;
  std::int64_t payload_bytes = 0;  // bytes handed to all-reduce
  std::int64_t sent_bytes = 0;     // bytes sent point-to-point (ring: counted; mpi: 2 (P-1)/P payload,
                                   // the bandwidth-optimal volume, as the library does not say)
};

class GradientAverager {
 public:
  // Requires communicator init(); throws on a bad option, naming it.
  explicit GradientAverager(DataParallelOptions options);
  // The hook: averages every parameter's grad over the ranks.
  void average(const std::vector<Parameter*>& params);
  // Averages every state tensor over the ranks (one all-reduce; nothing when there are none).
  void average_state(std::vector<StateTensor>& state);

  // The buckets of tensors of `bytes` each, in order: ranges [first, last) of at most
  // bucket_bytes (a larger tensor alone). What average() uses, and the static graph's
  // all-reduce nodes (graph/static/training_graph.h); buckets() counts the last plan.
  using Range = std::pair<std::size_t, std::size_t>;
  std::vector<Range> plan_buckets(const std::vector<std::int64_t>& bytes);
  // out[i] = (1/P) sum over the ranks of in[i] (out[i] may be in[i]), all in one all-reduce
  // call of the packed values: one bucket. Same dtype (f32 or f64) throughout.
  void mean(const std::vector<const kernels::Tensor*>& in, const std::vector<kernels::Tensor*>& out);
  // Counts one training step (average() counts its own).
  void count_step() { ++stats_.steps; }

  const AllreduceStats& stats() const { return stats_; }
  std::int64_t buckets() const { return static_cast<std::int64_t>(buckets_.size()); }
  const DataParallelOptions& options() const { return options_; }

 private:
  void plan(const std::vector<Parameter*>& params);

  DataParallelOptions options_;
  std::vector<Range> buckets_;
  std::size_t planned_count_ = 0;        // tensors in the last plan
  std::vector<unsigned char> buffer_;    // the packed values of one bucket at a time
  AllreduceStats stats_;
};

// Installs a GradientAverager as `engine`'s optimizer gradient hook, averaging the gradients
// and the engine's state tensors, and returns it; it must outlive the engine's training. An
// engine without a shared optimizer takes it itself (Engine::average_in_engine: the static
// graph's all-reduce nodes); throws if it cannot.
std::shared_ptr<GradientAverager> attach_data_parallel(Engine& engine, const DataParallelOptions& options);

// The mean over the ranks of a per-rank mean over equal slices: the global batch's mean loss.
double mean_over_ranks(double value);

}  // namespace ablate::graph::distributed
