// Graph construction, typing and rewriting helpers (see graph_ir.h).
#include "graph/static/graph_ir.h"

#include <algorithm>
#include <stdexcept>

#include "graph/static/op_shapes.h"

namespace ablate::graph::static_graph {

std::int64_t TensorType::bytes() const {
  return opaque ? 0 : kernels::shape_numel(shape) * static_cast<std::int64_t>(kernels::dtype_size(dtype));
}

int Graph::add(OpKind op, const std::string& name, std::vector<Value> inputs, Attrs attrs) {
  Node n;
  n.op = op;
  n.name = name;
  n.inputs = std::move(inputs);
  n.attrs = std::move(attrs);
  for (const Value& v : n.inputs)
    if (v.node < 0 || v.node >= size() || v.output < 0 ||
        v.output >= static_cast<int>(nodes_[static_cast<std::size_t>(v.node)].outputs.size()))
      throw std::invalid_argument("static graph: node '" + name + "' (" + op_name(op) + "): input " +
                                  std::to_string(v.node) + ":" + std::to_string(v.output) + " is not a value of the graph");
  n.outputs = infer_outputs(*this, n);
  n.order = static_cast<double>(nodes_.size());
  nodes_.push_back(std::move(n));
  return size() - 1;
}

int Graph::add_constant(const std::string& name, const kernels::Tensor& value, bool host_scalar) {
  Attrs a;
  a.value = value;
  a.shape = value.shape();
  a.dtype = value.dtype();
  int id = add(OpKind::constant, name, {}, a);
  nodes_[static_cast<std::size_t>(id)].outputs[0].host = host_scalar;
  return id;
}

Value Graph::out(int node, int output) const {
  const Node& n = this->node(node);
  if (output < 0 || output >= static_cast<int>(n.outputs.size()))
    throw std::invalid_argument("static graph: node '" + n.name + "' has no output " + std::to_string(output));
  return {node, output};
}

Node& Graph::node(int id) {
  if (id < 0 || id >= size()) throw std::out_of_range("static graph: no node " + std::to_string(id));
  return nodes_[static_cast<std::size_t>(id)];
}

const Node& Graph::node(int id) const {
  if (id < 0 || id >= size()) throw std::out_of_range("static graph: no node " + std::to_string(id));
  return nodes_[static_cast<std::size_t>(id)];
}

const TensorType& Graph::type(Value v) const { return node(v.node).outputs.at(static_cast<std::size_t>(v.output)); }

int Graph::live_count() const {
  return static_cast<int>(std::count_if(nodes_.begin(), nodes_.end(), [](const Node& n) { return !n.dead; }));
}

std::vector<int> Graph::execution_order() const {
  std::vector<int> order;
  for (int i = 0; i < size(); ++i)
    if (!nodes_[static_cast<std::size_t>(i)].dead) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return node(a).order < node(b).order; });
  return order;
}

std::vector<std::vector<std::vector<Use>>> Graph::uses() const {
  std::vector<std::vector<std::vector<Use>>> out(nodes_.size());
  for (std::size_t i = 0; i < nodes_.size(); ++i) out[i].resize(nodes_[i].outputs.size());
  for (int id : execution_order()) {
    const Node& n = node(id);
    for (std::size_t s = 0; s < n.inputs.size(); ++s)
      out[static_cast<std::size_t>(n.inputs[s].node)][static_cast<std::size_t>(n.inputs[s].output)].push_back(
          {id, static_cast<int>(s)});
  }
  return out;
}

void Graph::replace_uses(Value from, Value to) {
  for (Node& n : nodes_)
    for (Value& v : n.inputs)
      if (v == from) v = to;
  for (Value& v : fetches)
    if (v == from) v = to;
}

kernels::Tensor with_layout(const kernels::Tensor& t, const TensorType& type) {
  return type.channel_block == 0 ? t : t.with_channel_block(type.channel_block);
}

std::string Graph::describe(Value v) const {
  const TensorType& t = type(v);
  std::string text = "'" + node(v.node).name + "'";
  if (node(v.node).outputs.size() > 1) {
    text += ':';
    text += std::to_string(v.output);
  }
  text += " " + std::string(kernels::dtype_name(t.dtype)) + (t.opaque ? std::string("[workspace]") : kernels::shape_string(t.shape));
  if (t.channel_block != 0) text += " nChw" + std::to_string(t.channel_block) + "c";
  return text;
}

}  // namespace ablate::graph::static_graph
