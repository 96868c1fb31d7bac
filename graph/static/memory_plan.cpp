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

}  // namespace

MemoryPlan plan_memory(const Graph& g, const std::vector<int>& order, bool reuse) {
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
      if (k == 0 && n.inplace_input >= 0) {
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

  // Offsets: greedy in execution order, or one block each.
  FreeList arena;
  std::vector<std::vector<int>> starting(order.size()), ending(order.size());
  for (std::size_t gi = 0; gi < plan.groups.size(); ++gi) {
    starting[static_cast<std::size_t>(plan.groups[gi].first)].push_back(static_cast<int>(gi));
    ending[static_cast<std::size_t>(plan.groups[gi].last)].push_back(static_cast<int>(gi));
    plan.unplanned_bytes += plan.groups[gi].bytes;
  }
  for (std::size_t i = 0; i < order.size(); ++i) {
    for (int gi : starting[i]) plan.groups[static_cast<std::size_t>(gi)].offset = arena.allocate(plan.groups[static_cast<std::size_t>(gi)].bytes);
    if (reuse)
      for (int gi : ending[i]) arena.release(plan.groups[static_cast<std::size_t>(gi)].offset, plan.groups[static_cast<std::size_t>(gi)].bytes);
  }
  plan.arena_bytes = arena.end();

  // Orderings: a group that reuses an earlier group's bytes is written after that group's
  // producers and readers have run.
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
