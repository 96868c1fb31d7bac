// Memory planning of the static graph, as ggml's graph allocator (ggml-alloc.c) plans a
// compute graph: every transient tensor (an op's output that is not fetched, not a host
// scalar, not a backend workspace) gets an offset in one arena, and the output of a node the
// in-place pass marked shares its input's block (one group). A group is live from its
// producer to its last reader in the sequential order. Two placements are computed and the
// smaller arena kept: ggml's (walking the order, a group takes the best-fitting freed block
// when its producer runs, else the end of the arena; its block is freed after its last
// reader) and TensorFlow Lite's greedy by size (largest groups first, each in the smallest
// gap between live groups already placed). A block reused by a later group also yields
// orderings (every node touching the old group runs before the new group's producer), which
// the parallel executor honours, so both executors stay correct.
// Without planning (`reuse` false) nothing shares memory: every tensor keeps a buffer of its
// own for the session's life, in-place marks included (a graph runtime without an
// allocator: ggml without ggml-alloc, Theano with allow_gc off); the in-place pass only
// marks, the planner realises.
#pragma once

#include <cstdint>
#include <string>
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
  std::int64_t unplanned_bytes = 0;  // every tensor a buffer of its own
  std::string placement;             // in_order (ggml), by_size (TFLite) or none
  std::vector<std::pair<int, int>> orderings;  // (before, after) node pairs from block reuse
  // Whether node id's output 0 shares the buffer of its in-place input.
  bool aliased(int node) const { return !aliased_.empty() && aliased_[static_cast<std::size_t>(node)]; }
  std::vector<char> aliased_;
};

MemoryPlan plan_memory(const Graph& graph, const std::vector<int>& order, bool reuse);

// The groups alone, without offsets (arena_bytes 0, no orderings, placement empty): every
// transient value, the in-place outputs joined to their input's group when `join_inplace`.
// plan_memory places them; the refcount mode (refcount_memory.h) allocates them at run time.
MemoryPlan group_buffers(const Graph& graph, const std::vector<int>& order, bool join_inplace);

}  // namespace ablate::graph::static_graph
