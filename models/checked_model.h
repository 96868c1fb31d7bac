// CheckedModel: a ModelSpec with every model check run once, the form every engine builds
// from. Construction names each layer's input (an empty input after the first layer is the
// previous layer, as the parser writes it, so a spec built in code may leave it empty),
// resolves each layer's type in the catalogue and checks, with errors naming the layer:
//   the model has an input shape C H W, at least one layer and at least one class;
//   every type is known and accepts the layer's keys and values (the parser's checks, for a
//   spec built in code); names are unique; every input names a layer defined before it;
//   the last layer, and only the last, is a loss;
//   every layer's shape rule accepts its input (shape inference at batch 1, so geometry and
//   the loss's [N, classes] input are checked before any strategy builds anything).
// The parser runs the same structural checks (link_layers), so a model file and a spec built
// in code fail with the same messages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/tensor.h"
#include "models/layer_type.h"
#include "models/model_spec.h"

namespace ablate::models {

// Names every layer's input and checks names, inputs and the loss position (above); throws
// std::invalid_argument naming the layer.
void link_layers(ModelSpec& spec);

class CheckedModel {
 public:
  // Throws std::invalid_argument naming the model or the layer (see above).
  explicit CheckedModel(ModelSpec spec);

  const ModelSpec& spec() const { return spec_; }  // with every input named
  const std::string& name() const { return spec_.name; }
  std::size_t size() const { return spec_.layers.size(); }
  const LayerSpec& layer(std::size_t i) const { return spec_.layers.at(i); }
  const LayerType& type(std::size_t i) const { return *types_.at(i); }
  // The index of the layer that layer i reads; -1 for the model input.
  int input(std::size_t i) const { return inputs_.at(i); }
  // Shapes of every layer at batch 1 (models::infer_shapes).
  const std::vector<LayerShapes>& unit_shapes() const { return shapes_; }
  // The model input of a batch: [batch, C, H, W].
  kernels::Shape input_shape(std::int64_t batch) const;

 private:
  ModelSpec spec_;
  std::vector<const LayerType*> types_;
  std::vector<int> inputs_;
  std::vector<LayerShapes> shapes_;
};

}  // namespace ablate::models
