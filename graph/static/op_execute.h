// Runs one node of the static graph on the Backend: the kernel a TensorFlow OpKernel or a
// Theano thunk would call. Every op is one Backend call (or a documented short sequence:
// bias_add and scale copy first unless they run in place; a fused node is one
// fused_elementwise call, its steps applied per element in one pass), so the static strategy
// computes with exactly the kernels the layer-wise and dynamic strategies use.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/static/graph_ir.h"
#include "kernels/backend.h"

namespace ablate::graph::distributed {
class GradientAverager;
}

namespace ablate::graph::static_graph {

// What a run adds to the graph: the iteration (learning rate, dropout masks, Adam's t), the
// updates applied so far (Torch's first momentum step) and the engine seed (dropout).
struct RunContext {
  std::int64_t iteration = 0;
  std::int64_t updates_done = 0;
  std::uint64_t seed = 1;
  std::int64_t first_sample = 0;  // the batch's place in a global batch (dropout masks: EngineOptions)
  distributed::GradientAverager* allreduce = nullptr;  // what allreduce_mean nodes call (data parallel)
};

// The tensors of one node: inputs (apply_* write theirs) and outputs; `aliased` when output 0
// shares the buffer of inputs[node.inplace_input] (the in-place rewrite was realised).
struct NodeIO {
  std::vector<kernels::Tensor*> in, out;
  bool aliased = false;
};

void execute_node(const Graph& graph, const Node& node, kernels::Backend& backend, NodeIO& io, const RunContext& run);

}  // namespace ablate::graph::static_graph
