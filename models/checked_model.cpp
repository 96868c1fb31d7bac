// The model checks, run once (see checked_model.h).
#include "models/checked_model.h"

#include <map>
#include <set>
#include <stdexcept>

#include "models/layer_catalog.h"
#include "models/shape_inference.h"

namespace ablate::models {

namespace {

std::string count_of(int n) { return std::to_string(n) + (n == 1 ? " input" : " inputs"); }

// "1 input", "2 or more inputs", "2 to 3 inputs"
std::string arity(const LayerType& type) {
  if (type.max_inputs == type.min_inputs) return count_of(type.min_inputs);
  if (type.max_inputs == 0) return std::to_string(type.min_inputs) + " or more inputs";
  return std::to_string(type.min_inputs) + " to " + count_of(type.max_inputs);
}

}  // namespace

void link_layers(ModelSpec& spec) {
  std::map<std::string, std::size_t> defined, later;
  for (std::size_t i = 0; i < spec.layers.size(); ++i) later[spec.layers[i].name] = i;
  for (std::size_t i = 0; i < spec.layers.size(); ++i) {
    LayerSpec& layer = spec.layers[i];
    if (defined.count(layer.name))
      layer.fail("duplicate layer name '" + layer.name + "' (the layer name is used twice)");
    if (layer.name == kModelInput)
      layer.fail(std::string("the layer name '") + kModelInput + "' is reserved for the model input");
    if (layer.inputs.empty()) layer.inputs = {i > 0 ? spec.layers[i - 1].name : std::string(kModelInput)};
    const LayerType& type = layer_type_of(layer);
    const int count = static_cast<int>(layer.inputs.size());
    if (count < type.min_inputs || (type.max_inputs > 0 && count > type.max_inputs))
      layer.fail("reads " + count_of(count) + "; a " + type.name + " layer reads " + arity(type));
    std::map<std::string, int> seen;
    for (const std::string& input : layer.inputs) {
      if (input == kModelInput) continue;
      if (input == layer.name)
        layer.fail("input '" + input + "' is the layer itself (a cycle: a layer reads only layers defined before it)");
      if (!defined.count(input)) {
        if (later.count(input))
          layer.fail("input '" + input + "' is defined after it" +
                     (spec.layers[later[input]].line > 0 ? ", at line " + std::to_string(spec.layers[later[input]].line)
                                                         : std::string()) +
                     " (a cycle or a forward reference: a layer reads only layers defined before it)");
        layer.fail("input '" + input + "' is not a layer defined before it");
      }
    }
    const bool last = i + 1 == spec.layers.size();
    const bool loss = type.loss;
    if (loss && !last) layer.fail("a loss layer must be the last layer");
    if (!loss && last && !spec.forward_only)
      layer.fail("the last layer must be a loss (model '" + spec.name + "' must end with a loss layer: " +
                 loss_type_names() + ")");
    defined[layer.name] = i;
  }
}

CheckedModel::CheckedModel(ModelSpec spec) : spec_(std::move(spec)) {
  const std::string model = "model '" + spec_.name + "' (" + spec_.source + ")";
  if (spec_.input_shape.size() != 3) throw std::invalid_argument(model + " needs an input shape C H W");
  if (spec_.classes < (spec_.forward_only ? 0 : 1))
    throw std::invalid_argument(model + " has classes " + std::to_string(spec_.classes) + "; expected at least " + (spec_.forward_only ? "0" : "1"));
  if (spec_.layers.empty()) throw std::invalid_argument(model + " has no layers");
  for (const LayerSpec& layer : spec_.layers) {
    types_.push_back(&layer_type_of(layer));
    check_layer_keys(layer, *types_.back());
  }
  link_layers(spec_);
  std::map<std::string, int> index{{kModelInput, -1}};
  readers_.resize(spec_.layers.size() + 1);
  for (std::size_t i = 0; i < spec_.layers.size(); ++i) {
    const LayerSpec& layer = spec_.layers[i];
    std::vector<int> inputs;
    for (const std::string& input : layer.inputs) {
      inputs.push_back(index.at(input));
      readers_[static_cast<std::size_t>(inputs.back() + 1)].push_back(static_cast<int>(i));
    }
    inputs_.push_back(std::move(inputs));
    index[layer.name] = static_cast<int>(i);
  }
  shapes_ = infer_shapes(spec_, 1);
  check_given_names();
}

// Every value the spec gives (an imported model's initializers) names a parameter or a state
// tensor of the model, so that none is dropped unnoticed.
void CheckedModel::check_given_names() const {
  std::set<std::string> names;
  for (const LayerShapes& s : shapes_) {
    for (const std::string& suffix : s.param_names) names.insert(s.name + "." + suffix);
    for (const StateShape& state : s.state) names.insert(s.name + "." + state.suffix);
  }
  for (const auto& [name, value] : spec_.given)
    if (!names.count(name))
      throw std::invalid_argument("model '" + spec_.name + "' (" + spec_.source + "): a value is given for '" + name +
                                  "', which is no parameter or state tensor of the model");
}

bool CheckedModel::is_chain() const {
  for (std::size_t i = 0; i < inputs_.size(); ++i)
    if (inputs_[i].size() != 1) return false;
  for (const auto& r : readers_)
    if (r.size() > 1) return false;
  return true;
}

kernels::Shape CheckedModel::input_shape(std::int64_t batch) const {
  return {batch, spec_.input_shape[0], spec_.input_shape[1], spec_.input_shape[2]};
}

}  // namespace ablate::models
