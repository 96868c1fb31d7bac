// Output shape of every layer of a ModelSpec for a batch size, shared by all strategies
// and by the memory estimate; a mismatch throws naming the layer and the shapes.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "models/model_spec.h"

namespace ablate::models {

struct LayerShapes {
  std::string name;
  std::vector<std::int64_t> input;   // [N, C, H, W] or [N, F]
  std::vector<std::int64_t> output;  // loss layers: [1]
  std::vector<std::vector<std::int64_t>> params;  // weight, bias shapes (empty if none)
};

std::vector<LayerShapes> infer_shapes(const ModelSpec& spec, std::int64_t batch);

}  // namespace ablate::models
