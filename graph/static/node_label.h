// The op label (kernels/op_label.h) of a static-graph node, read from the names the builder,
// the differentiation and the optimizer give (model_builder.cpp, autodiff.cpp,
// training_graph.cpp): "conv1/conv2d" runs in the forward phase of layer conv1;
// "grad/ip1/linear/linear_grad_weight" in the backward phase of ip1; "update/conv1.bias" is
// the update of conv1's bias, inside the graph as in TensorFlow 1.x. A fused node keeps the
// layer of the chain's first node ("ip1/bias_add+relu"). The views point into the node's name.
#pragma once

#include "graph/static/graph_ir.h"
#include "kernels/op_label.h"

namespace ablate::graph::static_graph {

kernels::OpLabel node_label(const Node& node);

}  // namespace ablate::graph::static_graph
