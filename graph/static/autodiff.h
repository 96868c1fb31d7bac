// Symbolic differentiation: adds to a graph the nodes that compute the gradient of a scalar
// loss, by reverse accumulation over the graph (TensorFlow's tf.gradients, Theano's
// T.grad): from a seed 1 at the loss, every node with a gradient at an output emits the
// gradient ops of its inputs (gradient_rules.h); the gradients that meet at a value read by
// several nodes (a branch point: a residual block's input) are summed by one add_n node
// named grad/<node>/add_n, TF's AddN, in a fixed order. The builder emits the gradient of every float input on the way,
// the images' included; what no fetch needs is left to the dead-code pass (TF prunes by
// reachability before it builds; here that is the DCE pass's work, so switching DCE off
// shows its worth).
#pragma once

#include <vector>

#include "graph/static/graph_ir.h"

namespace ablate::graph::static_graph {

// The gradient of `loss` (a host scalar) with respect to each of `wrt`, in order. Throws
// std::invalid_argument naming a value of `wrt` that the loss does not depend on, or an op
// that has no gradient.
std::vector<Value> add_gradients(Graph& graph, Value loss, const std::vector<Value>& wrt);

}  // namespace ablate::graph::static_graph
