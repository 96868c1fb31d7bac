// The forward pass of a checked model on one backend, outside any engine: the test-phase
// static graph (model_builder.h: dropout the identity, batch norm on the running statistics)
// with its variables from models::make_initial_parameters and make_initial_state (which take
// ModelSpec::given: an imported model's weights), run once in a Session for one input, the
// last layer's output fetched. It runs a forward-only model (ModelSpec::forward_only: an ONNX
// operator test without a loss) as well as a model that ends in a loss (then the output is the
// loss, fed labels 0). ONNX's backend tests check an imported op this way.
#pragma once

#include <cstdint>

#include "kernels/backend.h"
#include "kernels/tensor.h"
#include "models/checked_model.h"

namespace ablate::graph::static_graph {

struct ForwardOptions {
  kernels::DType dtype = kernels::DType::f32;  // the graph's precision
  std::uint64_t seed = 1;                      // draws the parameters no given value sets
};

// y = the last layer's output for x [N, C, H, W] (the model's input shape; any batch N), as a
// host tensor of the graph's dtype. Throws std::invalid_argument naming the model when x does
// not fit its input.
kernels::Tensor run_forward(const models::CheckedModel& model, kernels::Backend& backend, const kernels::Tensor& x,
                            const ForwardOptions& options = {});

}  // namespace ablate::graph::static_graph
