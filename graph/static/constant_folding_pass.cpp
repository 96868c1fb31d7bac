// Constant folding (see passes.h): a stateless op whose inputs are all constants runs once
// on the backend at compile time; each of its outputs becomes a constant node in its place.
// Ops with workspaces (pooling, LRN) are left alone: their workspace is not a value.
#include "graph/static/op_execute.h"
#include "graph/static/passes.h"
#include "graph/static/variable_store.h"

namespace ablate::graph::static_graph {

int constant_folding_pass(Graph& g, kernels::Backend& backend) {
  int folded = 0;
  for (int id : g.execution_order()) {
    const Node n = g.node(id);
    if (is_source(n.op) || is_stateful(n.op) || n.outputs.empty() || !n.control.empty()) continue;
    bool foldable = true;
    for (const Value& v : n.inputs) foldable = foldable && g.node(v.node).op == OpKind::constant;
    for (const TensorType& t : n.outputs) foldable = foldable && !t.opaque;
    if (!foldable) continue;

    std::vector<kernels::Tensor> inputs, outputs;
    for (const Value& v : n.inputs) {
      const TensorType& t = g.type(v);
      const kernels::Tensor& value = g.node(v.node).attrs.value;
      inputs.push_back(t.host ? value : to_device(value, backend));
    }
    for (const TensorType& t : n.outputs)
      outputs.emplace_back(t.shape, t.dtype, t.host ? nullptr : &backend.allocator());
    NodeIO io;
    for (auto& t : inputs) io.in.push_back(&t);
    for (auto& t : outputs) io.out.push_back(&t);
    execute_node(g, n, backend, io, RunContext{});

    for (int k = 0; k < static_cast<int>(outputs.size()); ++k) {
      kernels::Tensor host = outputs[static_cast<std::size_t>(k)];
      if (host.device() != kernels::Device::cpu) {
        host = kernels::Tensor(n.outputs[static_cast<std::size_t>(k)].shape, n.outputs[static_cast<std::size_t>(k)].dtype);
        backend.copy(outputs[static_cast<std::size_t>(k)], host);
      }
      std::string name = n.name;
      if (n.outputs.size() > 1) {
        name += ':';
        name += std::to_string(k);
      }
      const int c = g.add_constant(name + "/folded", host,
                                   n.outputs[static_cast<std::size_t>(k)].host);
      g.node(c).order = n.order;
      g.replace_uses({id, k}, {c, 0});
      if (k == 0) replace_control(g, id, c);
    }
    g.node(id).dead = true;
    ++folded;
  }
  return folded;
}

}  // namespace ablate::graph::static_graph
