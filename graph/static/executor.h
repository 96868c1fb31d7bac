// Executors of a compiled static graph. `sequential` runs the nodes one after another in the
// planned order (Theano's VM, TensorFlow with one inter-op thread). `parallel` is
// TensorFlow's inter-op pool: a fixed set of threads (the calling thread and inter_op_threads - 1
// workers) runs every node whose predecessors (data
// and control edges) have finished, several at once when the graph allows (the gradient of a
// layer's weights beside the gradient of its input, independent branches); the Backend's
// intra-op threads work inside each op. Each op computes the same values whichever thread
// runs it, so both executors give identical results.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "graph/engine.h"

namespace ablate::graph::static_graph {

class Executor {
 public:
  virtual ~Executor() = default;
  virtual std::string name() const = 0;
  virtual int threads() const = 0;
  // Calls run_node(id) once per node, each after its predecessors. The first exception stops
  // the run (nodes not yet started are skipped) and is rethrown here.
  virtual void run(const std::function<void(int)>& run_node) = 0;
};

// Throws std::invalid_argument "inter_op_threads N: expected at least 1" for N < 1.
void check_inter_op_threads(int inter_op_threads);

// The run's core budget, shared by the parallel executor's pool and each op's intra-op threads
// (the core budget: never more busy threads than cores). Each worker runs one op at a time on
// `intra_op_threads` threads, so the pool gets min(requested, max(1, cores / intra_op_threads))
// workers: with `--threads 2` and an op on 2 threads, one worker (TensorFlow's inter-op pool of
// 2 beside an intra-op pool of 2 would keep 4 threads busy on 2 cores); with the reference
// backend's single-threaded ops, two. Throws std::invalid_argument for a count below 1.
int inter_op_threads_within(int requested, int cores, int intra_op_threads);

// The parallel executor's pool as applied (the run's record shows it beside the one asked):
// within the core budget on a CPU backend (as above; as asked without a budget, cores < 1); one
// worker on a device backend. cuda launches every op through one stream, one cuBLAS and one cuDNN
// handle, one workspace and one algorithm cache, so it takes one call at a time (called by
// several threads at once, the TensorFlow preset's inter-op pool crashed it on its first GPU
// run); TensorFlow's GPU device too launches its kernels inline, from one thread, onto one stream.
int applied_inter_op_threads(int requested, int cores, bool device_backend, int intra_op_threads);

// `order`: node ids in sequential order; `predecessors[i]`: the indices into `order` of the
// nodes that must finish before order[i] (all smaller than i). The parallel executor checks
// its thread count as check_inter_op_threads.
std::unique_ptr<Executor> make_executor(ExecutorKind kind, int inter_op_threads, std::vector<int> order,
                                        const std::vector<std::vector<int>>& predecessors);

}  // namespace ablate::graph::static_graph
