// Liveness-based buffer assignment in one arena (see memory_plan.h).
#include "graph/static/memory_plan.h"

#include <algorithm>
#include <set>

namespace ablate::graph::static_graph {
namespace {

constexpr std::int64_t kAlign = 64;

std::int64_t aligned(std::int64_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

// Free blocks of the arena, sorted by offset, neighbours merged.
class FreeList {
 public:
  std::int64_t allocate(std::int64_t bytes) {
    auto best = blocks_.end();
    for (auto it = blocks_.begin(); it != blocks_.end(); ++it)
      if (it->second >= bytes && (best == blocks_.end() || it->second < best->second)) best = it;
    if (best != blocks_.end()) {
      const std::int64_t offset = best->first;
      best->first += bytes;
      best->second -= bytes;
      if (best->second == 0) blocks_.erase(best);
      return offset;
    }
    // Grow the arena, starting in a free block that ends at its end.
    std::int64_t offset = end_;
    if (!blocks_.empty() && blocks_.back().first + blocks_.back().second == end_) {
      offset = blocks_.back().first;
      blocks_.pop_back();
    }
    end_ = offset + bytes;
    return offset;
  }
  void release(std::int64_t offset, std::int64_t bytes) {
    auto it = std::lower_bound(blocks_.begin(), blocks_.end(), std::make_pair(offset, std::int64_t{0}));
    it = blocks_.insert(it, {offset, bytes});
    if (it + 1 != blocks_.end() && it->first + it->second == (it + 1)->first) {
      it->second += (it + 1)->second;
      blocks_.erase(it + 1);
    }
    if (it != blocks_.begin() && (it - 1)->first + (it - 1)->second == it->first) {
      (it - 1)->second += it->second;
      blocks_.erase(it);
    }
  }
  std::int64_t end() const { return end_; }

 private:
  std::vector<std::pair<std::int64_t, std::int64_t>> blocks_;
  std::int64_t end_ = 0;
};

bool plannable(const Graph& g, int id, int output, const std::set<Value>& fetched) {
  const Node& n = g.node(id);
  if (n.op == OpKind::placeholder || n.op == OpKind::variable || n.op == OpKind::constant) return false;
  const TensorType& t = n.outputs[static_cast<std::size_t>(output)];
  return !t.host && !t.opaque && t.dtype == g.dtype() && !fetched.count(Value{id, output});
}

// ggml's graph allocator: walking the execution order, a group takes the best-fitting freed
// block when its producer runs and gives it back after its last reader. Returns the arena size.
std::int64_t place_in_order(std::vector<BufferGroup>& groups, std::size_t positions) {
  FreeList arena;
  std::vector<std::vector<std::size_t>> starting(positions), ending(positions);
  for (std::size_t i = 0; i < groups.size(); ++i) {
    starting[static_cast<std::size_t>(groups[i].first)].push_back(i);
    ending[static_cast<std::size_t>(groups[i].last)].push_back(i);
  }
  for (std::size_t p = 0; p < positions; ++p) {
    for (std::size_t i : starting[p]) groups[i].offset = arena.allocate(groups[i].bytes);
    for (std::size_t i : ending[p]) arena.release(groups[i].offset, groups[i].bytes);
  }
  return arena.end();
}

// TensorFlow Lite's greedy-by-size placement: the largest groups first, each at the
// smallest gap between the groups already placed that are live at the same time, which
// fragments less when one big tensor outlives many small ones. Returns the arena size.
std::int64_t place_by_size(std::vector<BufferGroup>& groups) {
  std::vector<std::size_t> by_size(groups.size());
  for (std::size_t i = 0; i < groups.size(); ++i) by_size[i] = i;
  std::stable_sort(by_size.begin(), by_size.end(), [&](std::size_t a, std::size_t b) { return groups[a].bytes > groups[b].bytes; });
  std::vector<std::size_t> placed;
  std::int64_t arena = 0;
  for (std::size_t i : by_size) {
    BufferGroup& g = groups[i];
    std::vector<std::size_t> live;
    for (std::size_t j : placed)
      if (groups[j].first <= g.last && g.first <= groups[j].last) live.push_back(j);
    std::sort(live.begin(), live.end(), [&](std::size_t a, std::size_t b) { return groups[a].offset < groups[b].offset; });
    std::int64_t end = 0, best = -1, best_gap = 0;
    for (std::size_t j : live) {
      const std::int64_t gap = groups[j].offset - end;
      if (gap >= g.bytes && (best < 0 || gap < best_gap)) {
        best = end;
        best_gap = gap;
      }
      end = std::max(end, groups[j].offset + groups[j].bytes);
    }
    g.offset = best >= 0 ? best : end;
    arena = std::max(arena, g.offset + g.bytes);
    placed.push_back(i);
  }
  return arena;
}

}  // namespace

MemoryPlan group_buffers(const Graph& g, const std::vector<int>& order, bool join_inplace) {
  MemoryPlan plan;
  plan.group.resize(static_cast<std::size_t>(g.size()));
  plan.aliased_.assign(static_cast<std::size_t>(g.size()), 0);
  std::vector<int> position(static_cast<std::size_t>(g.size()), -1);
  for (std::size_t i = 0; i < order.size(); ++i) position[static_cast<std::size_t>(order[i])] = static_cast<int>(i);
  const std::set<Value> fetched(g.fetches.begin(), g.fetches.end());
  const auto uses = g.uses();

  // Groups: a planned value starts one; an in-place output joins its input's group.
  for (int id : order) {
    const Node& n = g.node(id);
    auto& mine = plan.group[static_cast<std::size_t>(id)];
    mine.assign(n.outputs.size(), -1);
    for (int k = 0; k < static_cast<int>(n.outputs.size()); ++k) {
      if (!plannable(g, id, k, fetched)) continue;
      int joined = -1;
      if (join_inplace && k == 0 && n.inplace_input >= 0) {
        const Value in = n.inputs[static_cast<std::size_t>(n.inplace_input)];
        joined = plan.group[static_cast<std::size_t>(in.node)][static_cast<std::size_t>(in.output)];
      }
      if (joined < 0) {
        joined = static_cast<int>(plan.groups.size());
        plan.groups.push_back({aligned(n.outputs[static_cast<std::size_t>(k)].bytes()), 0, position[static_cast<std::size_t>(id)],
                               position[static_cast<std::size_t>(id)], {}});
      } else {
        plan.aliased_[static_cast<std::size_t>(id)] = 1;
      }
      BufferGroup& group = plan.groups[static_cast<std::size_t>(joined)];
      group.members.push_back({id, k});
      for (const Use& u : uses[static_cast<std::size_t>(id)][static_cast<std::size_t>(k)])
        group.last = std::max(group.last, position[static_cast<std::size_t>(u.node)]);
      group.last = std::max(group.last, position[static_cast<std::size_t>(id)]);
      mine[static_cast<std::size_t>(k)] = joined;
    }
  }

  for (const BufferGroup& group : plan.groups)
    plan.unplanned_bytes += group.bytes * static_cast<std::int64_t>(group.members.size());
  return plan;
}

MemoryPlan plan_memory(const Graph& g, const std::vector<int>& order, bool reuse) {
  MemoryPlan plan = group_buffers(g, order, reuse);
  if (!reuse) {
    for (BufferGroup& group : plan.groups) {
      group.offset = plan.arena_bytes;
      plan.arena_bytes += group.bytes;
    }
    plan.placement = "none";
    return plan;
  }
  // Offsets: both placements, keeping the smaller arena (in order on a tie).
  std::vector<BufferGroup> by_size = plan.groups;
  const std::int64_t in_order_bytes = place_in_order(plan.groups, order.size());
  const std::int64_t by_size_bytes = place_by_size(by_size);
  plan.arena_bytes = in_order_bytes;
  plan.placement = "in_order";
  if (by_size_bytes < in_order_bytes) {
    plan.groups = std::move(by_size);
    plan.arena_bytes = by_size_bytes;
    plan.placement = "by_size";
  }

  // Orderings: a group that reuses an earlier group's bytes is written after that group's
  // producers and readers have run.
  const auto uses = g.uses();
  std::set<std::pair<int, int>> orderings;
  for (const BufferGroup& later : plan.groups)
    for (const BufferGroup& earlier : plan.groups) {
      if (earlier.last >= later.first) continue;
      if (earlier.offset >= later.offset + later.bytes || later.offset >= earlier.offset + earlier.bytes) continue;
      const int writer = later.members.front().node;
      for (const Value& m : earlier.members) {
        orderings.insert({m.node, writer});
        for (const Use& u : uses[static_cast<std::size_t>(m.node)][static_cast<std::size_t>(m.output)])
          orderings.insert({u.node, writer});
      }
    }
  plan.orderings.assign(orderings.begin(), orderings.end());
  return plan;
}

}  // namespace ablate::graph::static_graph
