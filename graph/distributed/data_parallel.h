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
// for every strategy.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
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
  const AllreduceStats& stats() const { return stats_; }
  std::int64_t buckets() const { return static_cast<std::int64_t>(buckets_.size()); }
  const DataParallelOptions& options() const { return options_; }

 private:
  struct Bucket {
    std::size_t first = 0, last = 0;  // parameters [first, last)
    std::int64_t count = 0;           // values
    std::vector<unsigned char> buffer;
  };
  void plan(const std::vector<Parameter*>& params);

  DataParallelOptions options_;
  std::vector<Bucket> buckets_;
  AllreduceStats stats_;
};

// Installs a GradientAverager as `engine`'s optimizer gradient hook (throws if the engine has
// no shared optimizer) and returns it; it must outlive the engine's training.
std::shared_ptr<GradientAverager> attach_data_parallel(Engine& engine, const DataParallelOptions& options);

// The mean over the ranks of a per-rank mean over equal slices: the global batch's mean loss.
double mean_over_ranks(double value);

}  // namespace ablate::graph::distributed
