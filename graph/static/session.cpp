// Compiling and running a static graph (see session.h).
#include "graph/static/session.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "graph/static/node_label.h"

namespace ablate::graph::static_graph {
namespace {

void add_control(Node& n, int before) {
  if (std::find(n.control.begin(), n.control.end(), before) == n.control.end()) n.control.push_back(before);
}

}  // namespace

Session::Session(Graph graph, kernels::Backend& backend, VariableStore& store, const SessionOptions& options,
                 const AfterPass& after_pass)
    : graph_(std::move(graph)), backend_(backend) {
  stats_.passes = run_passes(graph_, options.disabled_passes, backend, after_pass);
  order_ = graph_.execution_order();
  add_write_orderings();
  const MemorySettings memory = memory_settings(options.disabled_passes);
  stats_.memory_planning = memory.mode == MemoryMode::arena;
  stats_.memory_mode = memory.mode;
  if (memory.mode == MemoryMode::refcount) {
    plan_ = group_buffers(graph_, order_, true);
    plan_.placement = "refcount";
    refcount_ = std::make_unique<RefcountMemory>(graph_, plan_, memory.forwarding, backend_.allocator());
  } else {
    plan_ = plan_memory(graph_, order_, memory.mode == MemoryMode::arena);
  }
  for (const auto& [before, after] : plan_.orderings) add_control(graph_.node(after), before);
  stats_.planned_bytes = plan_.arena_bytes;
  stats_.unplanned_bytes = plan_.unplanned_bytes;
  stats_.placement = plan_.placement;

  std::vector<int> position(static_cast<std::size_t>(graph_.size()), -1);
  for (std::size_t i = 0; i < order_.size(); ++i) position[static_cast<std::size_t>(order_[i])] = static_cast<int>(i);
  std::vector<std::vector<int>> predecessors(order_.size());
  for (std::size_t i = 0; i < order_.size(); ++i) {
    const Node& n = graph_.node(order_[i]);
    std::set<int> before;
    for (const Value& v : n.inputs) before.insert(position[static_cast<std::size_t>(v.node)]);
    for (int c : n.control) before.insert(position[static_cast<std::size_t>(c)]);
    for (int p : before)
      if (p < 0 || p >= static_cast<int>(i))
        throw std::logic_error("static graph: node '" + n.name + "' depends on a node that is dead or runs after it");
    predecessors[i].assign(before.begin(), before.end());
    stats_.orderings += static_cast<int>(n.control.size());
  }
  allocate(store);
  for (int id = 0; id < graph_.size(); ++id) labels_.push_back(node_label(graph_.node(id)));
  executor_ = make_executor(options.executor, options.inter_op_threads, order_, predecessors);
  update_held_bytes();
}

Session::~Session() = default;

// An apply node writes its variable (and its gradient and slots), batch_norm_update its
// running statistics: every other reader of those values runs before it, as TF's control
// dependencies on a variable's reads.
void Session::add_write_orderings() {
  const auto uses = graph_.uses();
  for (int id : order_) {
    Node& n = graph_.node(id);
    if (!is_update(n.op)) continue;
    for (std::size_t slot = 0; slot < n.inputs.size(); ++slot) {
      if (!writes_input(n.op, slot)) continue;
      const Value& v = n.inputs[slot];
      for (const Use& u : uses[static_cast<std::size_t>(v.node)][static_cast<std::size_t>(v.output)])
        if (u.node != id) add_control(n, u.node);
    }
  }
}

void Session::allocate(VariableStore& store) {
  const kernels::DType dtype = graph_.dtype();
  if (plan_.arena_bytes > 0) {
    const std::int64_t elements = plan_.arena_bytes / static_cast<std::int64_t>(kernels::dtype_size(dtype));
    arena_ = kernels::Tensor({elements}, dtype, &backend_.allocator());
  }
  tensors_.assign(static_cast<std::size_t>(graph_.size()), {});
  for (int id : order_) {
    const Node& n = graph_.node(id);
    auto& out = tensors_[static_cast<std::size_t>(id)];
    out.resize(n.outputs.size());
    for (std::size_t k = 0; k < n.outputs.size(); ++k) {
      const TensorType& t = n.outputs[k];
      const int group = plan_.group[static_cast<std::size_t>(id)][k];
      if (n.op == OpKind::variable) {
        out[k] = store.at(n.attrs.key);
        if (out[k].shape() != t.shape || out[k].dtype() != t.dtype)
          throw std::invalid_argument("static graph: variable '" + n.attrs.key + "' is " + out[k].describe() +
                                      " in the store; the graph expects " + kernels::dtype_name(t.dtype) +
                                      kernels::shape_string(t.shape));
      } else if (n.op == OpKind::constant) {
        out[k] = t.host ? n.attrs.value : to_device(n.attrs.value, backend_);
      } else if (group >= 0 && refcount_) {
        out[k] = kernels::Tensor();  // allocated by each run
      } else if (group >= 0) {
        const BufferGroup& g = plan_.groups[static_cast<std::size_t>(group)];
        const std::int64_t first = g.offset / static_cast<std::int64_t>(kernels::dtype_size(dtype));
        out[k] = with_layout(arena_.slice0(first, first + kernels::shape_numel(t.shape)).reshaped(t.shape), t);
      } else if (t.opaque) {
        out[k] = kernels::Tensor();  // the backend sizes it on the first run
      } else {
        out[k] = with_layout(kernels::Tensor(t.shape, t.dtype, t.host ? nullptr : &backend_.allocator()), t);
      }
    }
  }
  io_.assign(static_cast<std::size_t>(graph_.size()), {});
  for (int id : order_) {
    const Node& n = graph_.node(id);
    NodeIO& io = io_[static_cast<std::size_t>(id)];
    for (const Value& v : n.inputs)
      io.in.push_back(&tensors_[static_cast<std::size_t>(v.node)][static_cast<std::size_t>(v.output)]);
    for (auto& t : tensors_[static_cast<std::size_t>(id)]) io.out.push_back(&t);
    io.aliased = plan_.aliased(id);
  }
}

void Session::update_held_bytes() {
  std::int64_t bytes = plan_.arena_bytes;
  for (int id : order_) {
    const Node& n = graph_.node(id);
    if (n.op == OpKind::variable) continue;
    for (std::size_t k = 0; k < n.outputs.size(); ++k)
      if (plan_.group[static_cast<std::size_t>(id)][k] < 0)
        bytes += static_cast<std::int64_t>(tensors_[static_cast<std::size_t>(id)][k].bytes());
  }
  stats_.held_bytes = bytes;
}

void Session::feed(const std::string& name, const kernels::Tensor& host) {
  for (int id : order_) {
    const Node& n = graph_.node(id);
    if (n.op != OpKind::placeholder || n.attrs.key != name) continue;
    kernels::Tensor& dst = tensors_[static_cast<std::size_t>(id)][0];
    if (host.shape() != dst.shape())
      throw std::invalid_argument("static graph: feed '" + name + "' " + host.describe() + " does not fit the placeholder " +
                                  dst.describe());
    copy_in(host, dst, backend_);
    return;
  }
  for (int id = 0; id < graph_.size(); ++id)
    if (graph_.node(id).op == OpKind::placeholder && graph_.node(id).attrs.key == name) return;  // pruned: unused
  throw std::invalid_argument("static graph: no placeholder '" + name + "' to feed");
}

void Session::run(const RunContext& run) {
  const bool sizing = !workspaces_sized_;
  if (refcount_) refcount_->begin_run(tensors_);
  executor_->run([&](int id) {
    NodeIO& io = io_[static_cast<std::size_t>(id)];
    const kernels::OpLabelScope label(labels_[static_cast<std::size_t>(id)]);
    if (refcount_) refcount_->acquire(id, tensors_, io);
    execute_node(graph_, graph_.node(id), backend_, io, run);
    if (refcount_) refcount_->release(id, tensors_);
  });
  if (refcount_) {
    stats_.refcount_peak_bytes = refcount_->peak_bytes();
    stats_.forwarded_buffers = refcount_->forwarded();
  }
  if (sizing) {
    workspaces_sized_ = true;
    update_held_bytes();
  }
}

kernels::Tensor& Session::fetch(std::size_t i) {
  if (i >= graph_.fetches.size())
    throw std::out_of_range("static graph: fetch " + std::to_string(i) + " of " + std::to_string(graph_.fetches.size()));
  const Value v = graph_.fetches[i];
  if (!v.valid()) return given_up_;  // a gradient update_fusion folded into its update
  return tensors_[static_cast<std::size_t>(v.node)][static_cast<std::size_t>(v.output)];
}

const kernels::Tensor& Session::tensor(Value v) const {
  return tensors_.at(static_cast<std::size_t>(v.node)).at(static_cast<std::size_t>(v.output));
}

}  // namespace ablate::graph::static_graph
