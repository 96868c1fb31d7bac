// backward(): the reverse pass of the tape, as torch.autograd.backward. From the root (a
// scalar: a loss) it finds every node the root depends on, orders them by their position on
// the tape, latest first (an op is recorded after every op that made its inputs, so this is a
// reverse topological order), and runs each node's backward once all of its consumers have
// added their gradients to it. Leaves that require a gradient accumulate it in grad().
// Each node's saved tensors and gradient are freed as soon as its backward has run, so a
// second backward through the same graph is an error (PyTorch's retain_graph=False).
#pragma once

#include "graph/dynamic/variable.h"

namespace ablate::graph::dynamic {

// d(seed * root)/d(leaf) added to every reachable leaf's grad. `root` must have one element
// and require a gradient. Throws std::logic_error when the graph was already run backward.
void backward(const Variable& root, double seed = 1.0);

}  // namespace ablate::graph::dynamic
