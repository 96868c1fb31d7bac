// The tape of one forward pass as Graphviz dot, as torchviz's make_dot draws PyTorch's
// autograd graph: one box per recorded node (its op, its position on the tape, the layer
// that recorded it, the tensors it saved for backward and their bytes), an edge from each node to the node whose output it read, and the leaves
// that want a gradient (the parameters, with their shapes) as ellipses. Backward walks these
// edges from the loss, in decreasing tape position.
#pragma once

#include <string>

#include "graph/dynamic/variable.h"
#include "graph/engine.h"

namespace ablate::graph::dynamic {

// The tape reachable from `loss` (not yet walked by backward).
std::string tape_dot(const Variable& loss, const std::string& title);

// Records one forward pass of `model` on batch x, labels (host tensors) over `backend`, with the
// initial parameters of options.seed, and returns its tape_dot.
std::string recorded_tape_dot(const models::CheckedModel& model, kernels::Backend& backend,
                              const EngineOptions& options, const kernels::Tensor& x, const kernels::Tensor& labels);

}  // namespace ablate::graph::dynamic
