// Shape inference of the static graph at build time: the output types of a node from its
// inputs' types and its attributes, as TensorFlow's shape functions run when an op is added
// to a graph. A mismatch throws std::invalid_argument naming the node, the input nodes and
// their shapes, and what was expected.
#pragma once

#include <vector>

#include "graph/static/graph_ir.h"

namespace ablate::graph::static_graph {

// `node` is not yet in `graph`; its inputs are values of `graph`.
std::vector<TensorType> infer_outputs(const Graph& graph, const Node& node);

}  // namespace ablate::graph::static_graph
