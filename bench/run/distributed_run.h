// `ablate run --distributed`: data-parallel training over MPI ranks, as Horovod and
// PyTorch DDP run it. Every rank draws the same global batch order (same seed), trains on its
// contiguous slice (--batch / ranks samples), and the gradients are averaged over the ranks
// before each update (graph/distributed/data_parallel.h), so the run follows the single-process
// run of the same global batch. Rank 0 alone prints and writes the record; every rank's
// all-reduce time and traffic are gathered into it. The test and validation passes are
// sharded: each rank evaluates its share of the batches (test_pass.h).
#pragma once

#include <memory>

#include "bench/run/flags.h"
#include "bench/run/result_record.h"
#include "bench/run/run_config.h"
#include "bench/run/test_pass.h"
#include "graph/distributed/data_parallel.h"
#include "graph/engine.h"

namespace ablate::bench::run {

// Reads and checks --distributed, --allreduce and --bucket-mb (resolution: no side effects).
void read_distributed_flags(RunConfig& config, const Flags& args);
// With --distributed, when the run starts: initializes MPI, sets rank and ranks, checks that the
// global batch divides by the ranks, and quiets ranks > 0. Nothing without --distributed.
void join_distributed(RunConfig& config);

// The per-rank training batch.
std::int64_t local_batch(const RunConfig& config);

// With --distributed: installs the gradient averaging in the engine's optimizer; else nullptr.
std::shared_ptr<graph::distributed::GradientAverager> start_data_parallel(const RunConfig& config, graph::Engine& engine);

// This rank's share of the test and validation passes (test_pass.h): every rank's batches in
// turn with --distributed, else all of them.
TestShard test_shard(const RunConfig& config);

// The loss of the global batch from this rank's loss (identity when not distributed).
double global_loss(const RunConfig& config, double local_loss);
// The sum over the ranks of a per-rank count (identity when not distributed).
double sum_over_ranks(const RunConfig& config, double value);

// Collective at the end of a distributed run: the settings into `resolved` and every rank's
// all-reduce figures into the engine counters of rank 0's record.
void record_distributed(const RunConfig& config, const graph::distributed::GradientAverager* averager,
                        RunResult& result);

}  // namespace ablate::bench::run
