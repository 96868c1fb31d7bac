// Caffe's LayerRegistry for the layer-wise strategy: each layer class registers its maker
// for a model-file type with ABLATE_LAYERWISE_LAYER at the end of its own file (as Caffe's
// REGISTER_LAYER_CLASS); ActivationLayer serves every activation type (graph/layer_registry.h).
#pragma once

#include <functional>
#include <memory>

#include "graph/layer_registry.h"
#include "graph/layerwise/layer.h"

namespace ablate::graph::layerwise {

using LayerMaker = std::function<std::unique_ptr<Layer>(const models::LayerSpec&, const models::LayerType&,
                                                        kernels::Backend&, kernels::DType)>;
LayerRegistry<LayerMaker>& layer_registry();

// The layer of a checked layer spec of type `type`.
std::unique_ptr<Layer> make_layer(const models::LayerSpec& spec, const models::LayerType& type,
                                  kernels::Backend& backend, kernels::DType dtype);

// The maker of a layer class constructed as L(spec, backend, dtype).
template <class L>
LayerMaker maker_of() {
  return [](const models::LayerSpec& spec, const models::LayerType&, kernels::Backend& backend, kernels::DType dtype) {
    return std::unique_ptr<Layer>(std::make_unique<L>(spec, backend, dtype));
  };
}

}  // namespace ablate::graph::layerwise

// Registers layer class `Class` for model-file type `type`, at start-up.
#define ABLATE_LAYERWISE_LAYER(type, Class)                                             \
  ABLATE_REGISTER_LAYER_BUILDER(::ablate::graph::layerwise::layer_registry(), type, \
                                ::ablate::graph::layerwise::maker_of<Class>())
