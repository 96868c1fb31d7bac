// The graph index subgraph patterns read (see graph_index.h).
#include "models/onnx/patterns/graph_index.h"

#include <stdexcept>

#include "models/onnx/onnx_import.h"

namespace ablate::models::onnx_import::patterns {

GraphIndex::GraphIndex(const onnx::GraphProto& graph, const std::vector<onnx::NodeProto>& nodes, const std::string& source)
    : graph_(graph), nodes_(nodes), source_(source) {
  for (const auto& t : graph.initializer()) initializers_[t.name()] = &t;
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
    for (const auto& out : nodes[static_cast<std::size_t>(i)].output())
      if (!out.empty()) producer_[out] = i;
    for (const auto& in : nodes[static_cast<std::size_t>(i)].input())
      if (!in.empty()) readers_[in].push_back(i);
  }
  for (const auto& out : graph.output()) graph_outputs_[out.name()] = true;
}

int GraphIndex::producer(const std::string& value) const {
  auto it = producer_.find(value);
  return it == producer_.end() ? -1 : it->second;
}

const onnx::NodeProto* GraphIndex::produced_by(const std::string& value, const std::string& op_type) const {
  const int i = producer(value);
  if (i < 0) return nullptr;
  const onnx::NodeProto& n = nodes_[static_cast<std::size_t>(i)];
  return n.op_type() == op_type && (n.domain().empty() || n.domain() == "ai.onnx") ? &n : nullptr;
}

const std::vector<int>& GraphIndex::readers(const std::string& value) const {
  static const std::vector<int> none;
  auto it = readers_.find(value);
  return it == readers_.end() ? none : it->second;
}

bool GraphIndex::is_graph_output(const std::string& value) const { return graph_outputs_.count(value) != 0; }

const onnx::NodeProto* GraphIndex::only_reader(const std::string& value, const std::string& op_type) const {
  const auto& r = readers(value);
  if (r.size() != 1 || is_graph_output(value)) return nullptr;
  const onnx::NodeProto& n = nodes_[static_cast<std::size_t>(r[0])];
  return n.op_type() == op_type && (n.domain().empty() || n.domain() == "ai.onnx") ? &n : nullptr;
}

int GraphIndex::index_of(const onnx::NodeProto& node) const {
  return static_cast<int>(&node - nodes_.data());
}

std::vector<std::int64_t> GraphIndex::ints(const onnx::NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute())
    if (a.name() == name && a.type() == onnx::AttributeProto::INTS) return {a.ints().begin(), a.ints().end()};
  return {};
}

std::optional<std::int64_t> GraphIndex::int_attribute(const onnx::NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute())
    if (a.name() == name && a.type() == onnx::AttributeProto::INT) return a.i();
  return std::nullopt;
}

std::optional<GivenValues> GraphIndex::constant(const std::string& value) const {
  if (auto it = initializers_.find(value); it != initializers_.end())
    return tensor_values(*it->second, source_ + ": initializer '" + value + "'");
  if (const onnx::NodeProto* c = produced_by(value, "Constant")) {
    for (const auto& a : c->attribute())
      if (a.name() == "value" && a.type() == onnx::AttributeProto::TENSOR)
        return tensor_values(a.t(), source_ + ": Constant '" + value + "'");
    return std::nullopt;
  }
  if (const onnx::NodeProto* t = produced_by(value, "Transpose")) {
    std::optional<GivenValues> in = constant(t->input(0));
    if (!in) return std::nullopt;
    std::vector<std::int64_t> perm = ints(*t, "perm");
    if (perm.empty())  // ONNX's default: the axes reversed
      for (auto d = static_cast<std::int64_t>(in->shape.size()); d-- > 0;) perm.push_back(d);
    if (perm.size() != in->shape.size()) return std::nullopt;
    return permuted(*in, perm);
  }
  return std::nullopt;
}

std::optional<double> GraphIndex::scalar(const std::string& value) const {
  const std::optional<GivenValues> c = constant(value);
  if (!c || c->values.size() != 1) return std::nullopt;
  return c->values[0];
}

GivenValues permuted(const GivenValues& values, const std::vector<std::int64_t>& perm) {
  const std::size_t rank = values.shape.size();
  if (perm.size() != rank) throw std::invalid_argument("permuted: perm of another rank");
  GivenValues out;
  std::vector<std::int64_t> in_stride(rank, 1);
  for (std::size_t d = rank; d-- > 1;) in_stride[d - 1] = in_stride[d] * values.shape[d];
  for (std::size_t i = 0; i < rank; ++i) out.shape.push_back(values.shape[static_cast<std::size_t>(perm[i])]);
  out.values.resize(values.values.size());
  std::vector<std::int64_t> index(rank, 0);  // the output index, row-major
  for (std::size_t k = 0; k < out.values.size(); ++k) {
    std::int64_t source = 0;
    for (std::size_t i = 0; i < rank; ++i) source += index[i] * in_stride[static_cast<std::size_t>(perm[i])];
    out.values[k] = values.values[static_cast<std::size_t>(source)];
    for (std::size_t i = rank; i-- > 0;) {
      if (++index[i] < out.shape[i]) break;
      index[i] = 0;
    }
  }
  return out;
}

}  // namespace ablate::models::onnx_import::patterns
