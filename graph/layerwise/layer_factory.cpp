// The layer-wise strategy's registry of layer makers (see layer_factory.h).
#include "graph/layerwise/layer_factory.h"

namespace ablate::graph::layerwise {

LayerRegistry<LayerMaker>& layer_registry() {
  static LayerRegistry<LayerMaker> registry("layerwise");
  return registry;
}

std::unique_ptr<Layer> make_layer(const models::LayerSpec& spec, const models::LayerType& type,
                                  kernels::Backend& backend, kernels::DType dtype) {
  return layer_registry().at(spec)(spec, type, backend, dtype);
}

}  // namespace ablate::graph::layerwise
