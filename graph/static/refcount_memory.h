// The refcount memory mode of a compiled static graph (memory_mode.h): what TensorFlow 1.x's
// executor and Theano's VM with allow_gc=True do with an op's output. Every transient value
// (a group of group_buffers, memory_plan.h: a value and the in-place outputs written over
// it) gets a buffer from the backend's allocator when its producer runs and gives it back
// once every node reading one of its members has run (TensorFlow: the executor drops the
// Tensor's last reference; Theano: the VM clears the storage after its last use). Nothing
// transient is kept between runs: each run allocates again. (One difference: ablate's
// allocator zero-fills a new tensor, TensorFlow's allocate_output does not.)
//
// buffer_forwarding: an elementwise node (passes.h chain_slots) whose chain input has no
// reader left but itself takes that input's buffer for its output, as TensorFlow's kernels
// call forward_input_or_allocate_output, which forwards an input whose buffer's reference
// count is one. The choice is made at run time, so under the inter-op pool it depends on
// which readers have already finished, and adds no ordering; the static `inplace` pass
// instead decides at compile time and orders the other readers first. A node the in-place
// pass marked keeps its static alias.
//
// Thread-safe: the executor's threads call acquire and release; each node's own tensors are
// written only by the thread running it.
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include "graph/static/graph_ir.h"
#include "graph/static/memory_plan.h"
#include "graph/static/op_execute.h"

namespace ablate::graph::static_graph {

using NodeTensors = std::vector<std::vector<kernels::Tensor>>;  // per node, per output

class RefcountMemory {
 public:
  // `plan` from group_buffers(graph, order, true); `graph` must outlive this.
  RefcountMemory(const Graph& graph, const MemoryPlan& plan, bool forwarding, kernels::Allocator& allocator);

  // Frees what a failed run left behind and restores every group's count of readers.
  void begin_run(NodeTensors& tensors);
  // Before node `id` runs: its transient outputs get buffers (new, its static in-place
  // input's, or a forwarded input's); io.aliased says whether output 0 shares an input's.
  void acquire(int id, NodeTensors& tensors, NodeIO& io);
  // After node `id` has run: the buffers it was the last reader of are freed.
  void release(int id, NodeTensors& tensors);

  std::int64_t peak_bytes() const;  // the most transient bytes live at once, over all runs
  int forwarded() const;            // buffers forwarded in the last run

 private:
  int try_forward(int id, int output_group);  // the forwarded input slot, or -1
  void free_buffer(int buffer, NodeTensors& tensors);

  const Graph& graph_;
  const MemoryPlan& plan_;
  kernels::Allocator& allocator_;
  std::vector<int> readers_;                  // per group: distinct nodes reading a member
  std::vector<std::vector<int>> reads_;       // per node: the distinct groups it reads
  std::vector<std::vector<int>> candidates_;  // per node: input slots it may forward

  mutable std::mutex mutex_;  // guards everything below
  std::vector<int> pending_;                // per buffer (a group's index): readers still to run
  std::vector<int> buffer_of_;              // per group: the buffer backing it
  std::vector<std::vector<int>> backs_;     // per buffer: the groups it backs
  std::vector<std::int64_t> owned_bytes_;   // per buffer: bytes allocated for it (0: none)
  std::vector<char> freed_;                 // per buffer: given back in this run
  std::int64_t live_bytes_ = 0, peak_bytes_ = 0;
  int forwarded_ = 0;
};

}  // namespace ablate::graph::static_graph
