// The model checks, run once (see checked_model.h).
#include "models/checked_model.h"

#include <map>
#include <stdexcept>

#include "models/layer_catalog.h"
#include "models/shape_inference.h"

namespace ablate::models {

void link_layers(ModelSpec& spec) {
  std::map<std::string, std::size_t> defined;
  for (std::size_t i = 0; i < spec.layers.size(); ++i) {
    LayerSpec& layer = spec.layers[i];
    if (defined.count(layer.name))
      layer.fail("duplicate layer name '" + layer.name + "' (the layer name is used twice)");
    if (layer.input.empty() && i > 0) layer.input = spec.layers[i - 1].name;
    if (!layer.input.empty() && !defined.count(layer.input))
      layer.fail("input '" + layer.input + "' is not a layer defined before it");
    const bool last = i + 1 == spec.layers.size();
    const bool loss = layer_type_of(layer).loss;
    if (loss && !last) layer.fail("a loss layer must be the last layer");
    if (!loss && last)
      layer.fail("the last layer must be a loss (model '" + spec.name + "' must end with a loss layer: " +
                 loss_type_names() + ")");
    defined[layer.name] = i;
  }
}

CheckedModel::CheckedModel(ModelSpec spec) : spec_(std::move(spec)) {
  const std::string model = "model '" + spec_.name + "' (" + spec_.source + ")";
  if (spec_.input_shape.size() != 3) throw std::invalid_argument(model + " needs an input shape C H W");
  if (spec_.classes < 1)
    throw std::invalid_argument(model + " has classes " + std::to_string(spec_.classes) + "; expected at least 1");
  if (spec_.layers.empty()) throw std::invalid_argument(model + " has no layers");
  for (const LayerSpec& layer : spec_.layers) {
    types_.push_back(&layer_type_of(layer));
    check_layer_keys(layer, *types_.back());
  }
  link_layers(spec_);
  std::map<std::string, int> index;
  for (std::size_t i = 0; i < spec_.layers.size(); ++i) {
    const LayerSpec& layer = spec_.layers[i];
    inputs_.push_back(layer.input.empty() ? -1 : index.at(layer.input));
    index[layer.name] = static_cast<int>(i);
  }
  shapes_ = infer_shapes(spec_, 1);
}

kernels::Shape CheckedModel::input_shape(std::int64_t batch) const {
  return {batch, spec_.input_shape[0], spec_.input_shape[1], spec_.input_shape[2]};
}

}  // namespace ablate::models
