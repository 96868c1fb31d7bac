// Factory of the layer-wise strategy: a Caffe-style Net of Layers over Blobs, trained by a
// Solver (see net.h, layer.h, solver.h). Reached through the table of strategies
// (graph/engine.h make_engine), which checks the options first.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "graph/engine.h"

namespace ablate::graph::layerwise {

std::unique_ptr<Engine> make_layerwise_engine(const models::CheckedModel& model, kernels::Backend& backend,
                                              const EngineOptions& options);
// The catalogued layer types without a layer class (layer_factory.h).
std::vector<std::string> missing_builders();

}  // namespace ablate::graph::layerwise
