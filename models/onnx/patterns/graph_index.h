// What a subgraph pattern (patterns/fusion.h) reads of an ONNX graph before the walk: the node
// list, which node produces each value, how many nodes (and graph outputs) read it, and the
// value of a constant: an initializer, a Constant node's `value`, or a Transpose of either
// (torch.onnx writes a Linear on tokens as MatMul(x, Transpose(W)) without constant folding).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "models/model_spec.h"

namespace ablate::models::onnx_import::patterns {

class GraphIndex {
 public:
  GraphIndex(const onnx::GraphProto& graph, const std::vector<onnx::NodeProto>& nodes, const std::string& source);

  const std::vector<onnx::NodeProto>& nodes() const { return nodes_; }
  // The index of the node producing `value`, -1 for a graph input, an initializer or an unknown name.
  int producer(const std::string& value) const;
  // The producing node when its op type is `op_type` (default domain), else null.
  const onnx::NodeProto* produced_by(const std::string& value, const std::string& op_type) const;
  // The readers of `value` (node indices; a node reading it twice counted twice) and whether a
  // graph output is it.
  const std::vector<int>& readers(const std::string& value) const;
  bool is_graph_output(const std::string& value) const;
  // The node that is the one reader of `value` when it has op type `op_type`, else null
  // (several readers, a graph output, another op).
  const onnx::NodeProto* only_reader(const std::string& value, const std::string& op_type) const;
  // The value of a constant (see above), nullopt for an activation.
  std::optional<GivenValues> constant(const std::string& value) const;
  // A constant of one element, its value; nullopt otherwise.
  std::optional<double> scalar(const std::string& value) const;
  // The ints of a node's attribute, empty when absent.
  static std::vector<std::int64_t> ints(const onnx::NodeProto& node, const std::string& name);
  static std::optional<std::int64_t> int_attribute(const onnx::NodeProto& node, const std::string& name);
  int index_of(const onnx::NodeProto& node) const;

 private:
  const onnx::GraphProto& graph_;
  const std::vector<onnx::NodeProto>& nodes_;
  std::string source_;
  std::map<std::string, int> producer_;
  std::map<std::string, std::vector<int>> readers_;
  std::map<std::string, const onnx::TensorProto*> initializers_;
  std::map<std::string, bool> graph_outputs_;
};

// `values` (shape `dims`) with its axes permuted: out.shape[i] = dims[perm[i]].
GivenValues permuted(const GivenValues& values, const std::vector<std::int64_t>& perm);

}  // namespace ablate::models::onnx_import::patterns
