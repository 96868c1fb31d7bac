// The memory estimate of a training configuration (see memory_estimate.h); the workspace
// is the largest scratch a layer type states (the convolution's im2col buffer).
#include "models/memory_estimate.h"

#include <algorithm>

#include "models/layer_catalog.h"
#include "models/shape_inference.h"

namespace ablate::models {

MemoryEstimate estimate_training_memory(const ModelSpec& spec, std::int64_t batch, kernels::DType dtype,
                                        const std::string& optimizer) {
  const double bytes = static_cast<double>(kernels::dtype_size(dtype));
  const double state_tensors = optimizer == "adam" || optimizer == "adamw" ? 2 : 1;
  const std::vector<LayerShapes> shapes = infer_shapes(spec, batch);
  MemoryEstimate e;
  e.activation_bytes = static_cast<double>(kernels::shape_numel(shapes.front().input)) * bytes;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const LayerShapes& s = shapes[i];
    for (const auto& p : s.params) e.parameter_bytes += static_cast<double>(kernels::shape_numel(p)) * bytes;
    e.activation_bytes += 2 * static_cast<double>(kernels::shape_numel(s.output)) * bytes;
    const LayerType& type = layer_type_of(spec.layers[i]);
    if (type.workspace_elements)
      e.workspace_bytes = std::max(e.workspace_bytes, type.workspace_elements(spec.layers[i], s) * bytes);
  }
  e.gradient_bytes = e.parameter_bytes;
  e.optimizer_bytes = state_tensors * e.parameter_bytes;
  return e;
}

}  // namespace ablate::models
