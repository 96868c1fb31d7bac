// Caffe's LayerRegistry: the layer of a LayerSpec's type.
#pragma once

#include <memory>

#include "graph/layerwise/layer.h"

namespace ablate::graph::layerwise {

// Throws std::invalid_argument naming the layer when its type has no layer-wise layer.
std::unique_ptr<Layer> make_layer(const models::LayerSpec& spec, kernels::Backend& backend, kernels::DType dtype);

}  // namespace ablate::graph::layerwise
