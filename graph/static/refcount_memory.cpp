// Run-time allocation by reader counts, and buffer forwarding (see refcount_memory.h).
#include "graph/static/refcount_memory.h"

#include <algorithm>
#include <set>

#include "graph/static/passes.h"

namespace ablate::graph::static_graph {
namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }

}  // namespace

RefcountMemory::RefcountMemory(const Graph& graph, const MemoryPlan& plan, bool forwarding, kernels::Allocator& allocator)
    : graph_(graph), plan_(plan), allocator_(allocator) {
  const auto uses = graph.uses();
  const std::size_t groups = plan.groups.size();
  readers_.assign(groups, 0);
  for (std::size_t g = 0; g < groups; ++g) {
    std::set<int> nodes;
    for (const Value& m : plan.groups[g].members)
      for (const Use& u : uses[at(m.node)][at(m.output)]) nodes.insert(u.node);
    readers_[g] = static_cast<int>(nodes.size());
  }
  reads_.resize(at(graph.size()));
  candidates_.resize(at(graph.size()));
  for (int id = 0; id < graph.size(); ++id) {
    const Node& n = graph.node(id);
    if (n.dead) continue;
    std::set<int> read;
    for (const Value& v : n.inputs)
      if (const int g = plan.group[at(v.node)][at(v.output)]; g >= 0) read.insert(g);
    reads_[at(id)].assign(read.begin(), read.end());
    // Forwarding candidates: output 0 transient and not aliased by the in-place pass; the
    // input transient, of the output's type, read once by this node (a second read would
    // hold a second reference: TensorFlow would not forward it either).
    if (!forwarding || n.outputs.empty() || plan.aliased(id) || plan.group[at(id)][0] < 0) continue;
    for (int slot : chain_slots(n)) {
      const Value v = n.inputs[at(slot)];
      const TensorType& t = graph.type(v);
      if (plan.group[at(v.node)][at(v.output)] < 0 || t.shape != n.outputs[0].shape || t.dtype != n.outputs[0].dtype ||
          t.channel_block != n.outputs[0].channel_block)
        continue;
      if (std::count(n.inputs.begin(), n.inputs.end(), v) == 1) candidates_[at(id)].push_back(slot);
    }
  }
}

void RefcountMemory::begin_run(NodeTensors& tensors) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const BufferGroup& group : plan_.groups)
    for (const Value& m : group.members) tensors[at(m.node)][at(m.output)] = kernels::Tensor();
  const std::size_t groups = plan_.groups.size();
  pending_ = readers_;
  buffer_of_.resize(groups);
  backs_.assign(groups, {});
  for (std::size_t g = 0; g < groups; ++g) {
    buffer_of_[g] = static_cast<int>(g);
    backs_[g].push_back(static_cast<int>(g));
  }
  owned_bytes_.assign(groups, 0);
  freed_.assign(groups, 0);
  live_bytes_ = 0;
  forwarded_ = 0;
}

int RefcountMemory::try_forward(int id, int output_group) {
  const Node& n = graph_.node(id);
  std::lock_guard<std::mutex> lock(mutex_);
  for (int slot : candidates_[at(id)]) {
    const Value v = n.inputs[at(slot)];
    const int buffer = buffer_of_[at(plan_.group[at(v.node)][at(v.output)])];
    if (pending_[at(buffer)] != 1) continue;  // another reader still needs it
    buffer_of_[at(output_group)] = buffer;
    backs_[at(buffer)].push_back(output_group);
    pending_[at(buffer)] += readers_[at(output_group)];
    ++forwarded_;
    return slot;
  }
  return -1;
}

void RefcountMemory::acquire(int id, NodeTensors& tensors, NodeIO& io) {
  const Node& n = graph_.node(id);
  io.aliased = plan_.aliased(id);
  for (std::size_t k = 0; k < n.outputs.size(); ++k) {
    const int group = plan_.group[at(id)][k];
    if (group < 0) continue;  // kept for the session's life
    kernels::Tensor& out = tensors[at(id)][k];
    if (k == 0 && io.aliased) {  // the in-place pass's alias: the input's buffer, same shape
      out = *io.in[at(n.inplace_input)];
      continue;
    }
    if (k == 0 && !candidates_[at(id)].empty()) {
      if (const int slot = try_forward(id, group); slot >= 0) {
        out = *io.in[at(slot)];
        io.aliased = true;
        continue;
      }
    }
    out = with_layout(kernels::Tensor(n.outputs[k].shape, n.outputs[k].dtype, &allocator_), n.outputs[k]);
    std::lock_guard<std::mutex> lock(mutex_);
    owned_bytes_[at(group)] = static_cast<std::int64_t>(out.bytes());
    live_bytes_ += owned_bytes_[at(group)];
    peak_bytes_ = std::max(peak_bytes_, live_bytes_);
  }
}

void RefcountMemory::free_buffer(int buffer, NodeTensors& tensors) {
  freed_[at(buffer)] = 1;
  for (int group : backs_[at(buffer)])
    for (const Value& m : plan_.groups[at(group)].members) tensors[at(m.node)][at(m.output)] = kernels::Tensor();
  live_bytes_ -= owned_bytes_[at(buffer)];
}

void RefcountMemory::release(int id, NodeTensors& tensors) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (int group : reads_[at(id)]) {
    const int buffer = buffer_of_[at(group)];
    if (--pending_[at(buffer)] == 0) free_buffer(buffer, tensors);
  }
  // Outputs no node reads are freed at once (without DCE: the input images' gradient).
  for (int group : plan_.group[at(id)]) {
    if (group < 0) continue;
    const int buffer = buffer_of_[at(group)];
    if (pending_[at(buffer)] == 0 && !freed_[at(buffer)]) free_buffer(buffer, tensors);
  }
}

std::int64_t RefcountMemory::peak_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return peak_bytes_;
}

int RefcountMemory::forwarded() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return forwarded_;
}

}  // namespace ablate::graph::static_graph
