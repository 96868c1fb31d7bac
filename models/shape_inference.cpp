// Shape of every layer's input, output and parameters for a batch of N samples: the model
// input [N, C, H, W] goes to the first layer, and each layer's type turns its input shape
// into its output and parameter shapes (models/layers/<type>.cpp states each rule).
#include "models/shape_inference.h"

#include <map>
#include <stdexcept>

#include "kernels/tensor.h"
#include "models/layer_catalog.h"

namespace ablate::models {
namespace {

// Every shape handed on must have an element count that fits int64 (kernels::shape_numel
// throws otherwise), so the memory estimate and the engines can count and allocate it.
void check_sizes(const LayerSpec& layer, const LayerShapes& s) {
  try {
    kernels::shape_numel(s.output);
    for (const Dims& p : s.params) kernels::shape_numel(p);
  } catch (const std::invalid_argument& e) {
    layer.fail(e.what());
  }
}

}  // namespace

std::vector<LayerShapes> infer_shapes(const ModelSpec& spec, std::int64_t batch) {
  if (batch < 1) throw std::invalid_argument("infer_shapes: batch must be positive, got " + std::to_string(batch));
  if (spec.input_shape.size() != 3)
    throw std::invalid_argument(spec.source + ": model '" + spec.name + "' needs an input shape C H W");
  const Dims model_input = {batch, spec.input_shape[0], spec.input_shape[1], spec.input_shape[2]};
  try {
    kernels::shape_numel(model_input);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(spec.source + ": model '" + spec.name + "': input of batch " + std::to_string(batch) +
                                ": " + e.what());
  }
  std::vector<LayerShapes> shapes;
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < spec.layers.size(); ++i) {
    const LayerSpec& layer = spec.layers[i];
    const LayerType& type = layer_type_of(layer);
    LayerShapes s;
    s.name = layer.name;
    // Empty inputs are the model input for the first layer and the previous layer after it
    // (the parser names them; a spec built in code may leave them empty).
    std::vector<std::string> inputs = layer.inputs;
    if (inputs.empty()) inputs = {i > 0 ? spec.layers[i - 1].name : std::string(kModelInput)};
    for (const std::string& input : inputs) {
      if (input == kModelInput) {
        s.inputs.push_back(model_input);
        continue;
      }
      auto it = index.find(input);
      if (it == index.end()) layer.fail("input '" + input + "' is not a layer defined before it");
      s.inputs.push_back(shapes[it->second].output);
    }
    s.input = s.inputs.front();
    try {
      type.shape(layer, spec, s);
      check_sizes(layer, s);
    } catch (const std::invalid_argument& e) {
      // Name the full input shape for every geometry problem of this layer.
      std::string shapes_read;
      for (std::size_t k = 0; k < s.inputs.size(); ++k)
        shapes_read += (k ? ", " : "") + inputs[k] + " " + kernels::shape_string(s.inputs[k]);
      throw std::invalid_argument(std::string(e.what()) +
                                  (s.inputs.size() == 1 ? " (layer input " + kernels::shape_string(s.input) + ")"
                                                        : " (layer inputs " + shapes_read + ")"));
    }
    index[layer.name] = shapes.size();
    shapes.push_back(std::move(s));
  }
  return shapes;
}

}  // namespace ablate::models
