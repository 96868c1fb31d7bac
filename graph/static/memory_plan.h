// Memory planning of the static graph, as ggml's graph allocator (ggml-alloc.c) plans a
// compute graph: every transient tensor (an op's output that is not fetched, not a host
// scalar, not a backend workspace) gets an offset in one arena. Walking the execution order,
// a tensor is placed when its producer runs (best fit among the freed blocks, else at the
// end of the arena) and its block is freed after its last reader; an in-place output shares
// its input's block (one group). Liveness is in the sequential order; a block reused by a
// later group also yields orderings (every node touching the old group runs before the new
// group's producer), which the parallel executor honours, so both executors stay correct.
// Without planning (`reuse` false) every group keeps a block of its own for the session's
// life (Theano with allow_gc off).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "graph/static/graph_ir.h"

namespace ablate::graph::static_graph {

struct BufferGroup {
  std::int64_t bytes = 0, offset = 0;  // 64-byte aligned
  int first = 0, last = 0;             // positions in the order: producer, last reader
  std::vector<Value> members;          // the value, then the in-place outputs written over it
};

struct MemoryPlan {
  std::vector<std::vector<int>> group;  // per node, per output: its group, or -1 (not planned)
  std::vector<BufferGroup> groups;
  std::int64_t arena_bytes = 0;      // what the plan needs
  std::int64_t unplanned_bytes = 0;  // every group a buffer of its own
  std::vector<std::pair<int, int>> orderings;  // (before, after) node pairs from block reuse
  // Whether node id's output 0 shares the buffer of its in-place input.
  bool aliased(int node) const { return !aliased_.empty() && aliased_[static_cast<std::size_t>(node)]; }
  std::vector<char> aliased_;
};

MemoryPlan plan_memory(const Graph& graph, const std::vector<int>& order, bool reuse);

}  // namespace ablate::graph::static_graph
