// Subgraph patterns: before the graph walk, the importer finds subgraphs that stand for one
// ablate layer and replaces each by one node, which the walk then maps like any other:
//   gelu_erf_pattern.cpp    x · 0.5 · (1 + erf(x / √2)) as torch.onnx writes nn.GELU (Div, Erf,
//                           Add, Mul, Mul) -> one ONNX Gelu node (opset 20's op; ops/gelu.cpp)
//   layer_norm_pattern.cpp  layer normalisation over the last axis as torch.onnx writes it below
//                           opset 17 (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add)
//                           -> one LayerNormalization node (ops/layer_normalization.cpp)
//   attention_pattern.cpp   multi-head self-attention (the Q, K, V projections, the split into
//                           heads, Q·Kᵀ, its scale, Softmax, ·V, the heads joined, the output
//                           projection) -> one MultiHeadSelfAttention node (ops/attention.cpp)
// A node standing for a subgraph takes the place of the subgraph's last node (the others are
// dropped; Constant and weight-Transpose nodes that fed it stay and map to unused constants),
// is named after the longest common '/'-prefix of the replaced nodes' names
// ("/blocks/blocks.0/attn"), and reads its weights as constants the pattern adds.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "models/model_spec.h"
#include "models/onnx/patterns/graph_index.h"

namespace ablate::models::onnx_import::patterns {

// The op type of the node standing for a multi-head self-attention subgraph; it is no ONNX op
// and the walk maps it only where a pattern made it.
inline constexpr const char* kAttentionOp = "MultiHeadSelfAttention";

struct FusedGraph {
  std::vector<onnx::NodeProto> nodes;            // the node list the walk visits, in order
  std::vector<bool> from_pattern;                // nodes[i] stands for a recognised subgraph
  std::map<std::string, GivenValues> constants;  // the weights those nodes read, by input name
};

// One match of a pattern: the node indices it replaces and the node that stands for them.
struct PatternMatch {
  std::vector<int> replaced;
  onnx::NodeProto node;
  std::map<std::string, GivenValues> constants;
};

// A pattern finds its matches in the graph (they must not overlap); it throws an error naming
// the node where a subgraph that is clearly its kind departs from what ablate's layer computes.
using Pattern = std::function<std::vector<PatternMatch>(const GraphIndex&, const std::string& source)>;

std::vector<PatternMatch> find_gelu_erf(const GraphIndex& graph, const std::string& source);
std::vector<PatternMatch> find_layer_norm(const GraphIndex& graph, const std::string& source);
std::vector<PatternMatch> find_attention(const GraphIndex& graph, const std::string& source);

// Every pattern applied in turn: GELU, layer normalisation, attention (whose Div and Mul the
// others' would not match, and which needs the layer norm before it no more).
FusedGraph fuse_patterns(const onnx::GraphProto& graph, const std::string& source);

// The longest common prefix of the nodes' names, cut after its last '/' part ("/a/b/q/MatMul",
// "/a/b/Softmax" -> "/a/b"); `fallback` when empty.
std::string common_name(const std::vector<const onnx::NodeProto*>& nodes, const std::string& fallback);

// Whether a and b agree within `relative` of b.
bool close_to(double a, double b, double relative = 1e-6);

}  // namespace ablate::models::onnx_import::patterns
