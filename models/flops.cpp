// Model FLOPs from the shapes of shape inference and each layer type's FLOP rule (see
// flops.h); types without one are not counted.
#include "models/flops.h"

#include "models/layer_catalog.h"
#include "models/shape_inference.h"

namespace ablate::models {

ModelFlops model_flops(const ModelSpec& spec, std::int64_t batch) {
  const std::vector<LayerShapes> shapes = infer_shapes(spec, batch);
  ModelFlops out;
  for (std::size_t i = 0; i < spec.layers.size(); ++i) {
    const LayerType& type = layer_type_of(spec.layers[i]);
    const double flops = type.flops ? type.flops(spec.layers[i], shapes[i]) : 0;
    if (flops == 0) continue;
    out.forward += flops;
    out.per_layer.emplace_back(spec.layers[i].name, flops);
  }
  return out;
}

}  // namespace ablate::models
