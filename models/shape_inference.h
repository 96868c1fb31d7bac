// Output shape of every layer of a ModelSpec for a batch size, shared by all strategies
// and by the memory estimate; each layer's shape rule is its type's (models/layer_type.h).
// A mismatch throws naming the layer and the shapes.
#pragma once

#include <cstdint>
#include <vector>

#include "models/layer_type.h"
#include "models/model_spec.h"

namespace ablate::models {

std::vector<LayerShapes> infer_shapes(const ModelSpec& spec, std::int64_t batch);

}  // namespace ablate::models
