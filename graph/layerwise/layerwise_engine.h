// Factory of the layer-wise strategy: a Caffe-style Net of Layers over Blobs, trained by a
// Solver (see net.h, layer.h, solver.h).
#pragma once

#include <memory>

#include "graph/engine.h"

namespace ablate::graph::layerwise {

std::unique_ptr<Engine> make_layerwise_engine(const models::ModelSpec& spec, kernels::Backend& backend,
                                              const EngineOptions& options);

}  // namespace ablate::graph::layerwise
