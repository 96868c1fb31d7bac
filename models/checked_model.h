// CheckedModel: a ModelSpec with every model check run once, the form every engine builds
// from. Construction names each layer's input (an empty input after the first layer is the
// previous layer, as the parser writes it, so a spec built in code may leave it empty),
// resolves each layer's type in the catalogue and checks, with errors naming the layer:
//   the model has an input shape C H W, at least one layer and at least one class;
//   every type is known and accepts the layer's keys and values (the parser's checks, for a
//   spec built in code); names are unique; every input names a layer defined before it (or
//   `data`, the model input), so the layers in file order are a topological order and the
//   model is a DAG; each layer reads as many inputs as its type takes;
//   the last layer, and only the last, is a loss (a forward-only model, ModelSpec::forward_only,
//   need not end in one, and may have 0 classes);
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
  // The index of the (first) layer that layer i reads; -1 for the model input.
  int input(std::size_t i) const { return inputs_.at(i).front(); }
  // Every layer that layer i reads, in order (-1: the model input); one for most types.
  const std::vector<int>& inputs(std::size_t i) const { return inputs_.at(i); }
  // The layers that read layer i's output, in file order (i = -1: the model input's readers).
  // More than one is a fan-out: Caffe splits it, the tape and the symbolic gradient sum there.
  const std::vector<int>& readers(int i) const { return readers_.at(static_cast<std::size_t>(i + 1)); }
  // Whether the model is a chain: every layer reads one input, every output is read once.
  bool is_chain() const;
  // Shapes of every layer at batch 1 (models::infer_shapes).
  const std::vector<LayerShapes>& unit_shapes() const { return shapes_; }
  // The model input of a batch: [batch, C, H, W].
  kernels::Shape input_shape(std::int64_t batch) const;

 private:
  void check_given_names() const;

  ModelSpec spec_;
  std::vector<const LayerType*> types_;
  std::vector<std::vector<int>> inputs_;
  std::vector<std::vector<int>> readers_;  // index i + 1: the readers of layer i (0: the model input)
  std::vector<LayerShapes> shapes_;
};

}  // namespace ablate::models
