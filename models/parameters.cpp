// The initial parameters of a model in the one canonical order every strategy shares:
// layers in file order, weight then bias, all drawn from one std::mt19937_64(seed). Shapes
// and fans come from each layer's type; initializer and multipliers from its
// <suffix>_init, <suffix>_lr_mult and <suffix>_decay_mult keys (models::param_settings).
#include "models/parameters.h"

#include <algorithm>
#include <random>
#include <stdexcept>

#include "models/initializers.h"
#include "models/layer_catalog.h"
#include "models/layer_params.h"
#include "models/shape_inference.h"

namespace ablate::models {
namespace {

// The window area of the first layer reading layer `index` when that reader pools; else 0.
double reader_pooled_area(const ModelSpec& spec, std::size_t index) {
  const std::string& name = spec.layers[index].name;
  for (std::size_t i = index + 1; i < spec.layers.size(); ++i) {
    const LayerSpec& reader = spec.layers[i];
    const bool reads = reader.inputs.empty() ? spec.layers[i - 1].name == name
                                             : std::find(reader.inputs.begin(), reader.inputs.end(), name) !=
                                                   reader.inputs.end();
    if (!reads) continue;
    const LayerType& type = layer_type_of(reader);
    return type.pooled_area ? type.pooled_area(reader) : 0;
  }
  return 0;
}

// Copies the value the spec gives for tensor `name` (an imported model's initializer) into
// `t` and returns true; false when none is given. A given value of another shape is an error
// naming the tensor and both shapes.
bool take_given(const ModelSpec& spec, const std::string& name, kernels::Tensor& t) {
  auto it = spec.given.find(name);
  if (it == spec.given.end()) return false;
  const GivenValues& g = it->second;
  if (kernels::Shape(g.shape.begin(), g.shape.end()) != t.shape() || static_cast<std::int64_t>(g.values.size()) != t.numel())
    throw std::invalid_argument("model '" + spec.name + "' (" + spec.source + "): the value given for " + name + " is " +
                                kernels::shape_string(kernels::Shape(g.shape.begin(), g.shape.end())) +
                                " with " + std::to_string(g.values.size()) + " elements; the model's " + name +
                                " is " + kernels::shape_string(t.shape()));
  for (std::int64_t k = 0; k < t.numel(); ++k) t.set(k, g.values[static_cast<std::size_t>(k)]);
  return true;
}

}  // namespace

std::vector<InitialParameter> make_initial_parameters(const ModelSpec& spec, kernels::DType dtype,
                                                      std::uint64_t seed) {
  const std::vector<LayerShapes> shapes = infer_shapes(spec, 1);
  std::mt19937_64 rng(seed);
  std::vector<InitialParameter> params;
  for (std::size_t i = 0; i < spec.layers.size(); ++i) {
    const LayerSpec& layer = spec.layers[i];
    const LayerShapes& s = shapes[i];
    if (s.params.empty()) continue;
    const LayerType& type = layer_type_of(layer);
    std::vector<ParamFans> fans(s.params.size());
    if (type.fans) fans = type.fans(FanArgs{layer, s, reader_pooled_area(spec, i)});
    for (std::size_t k = 0; k < s.params.size(); ++k) {
      const ParamSettings settings = param_settings(layer, s.param_names[k]);
      InitialParameter p;
      p.name = layer.name + "." + s.param_names[k];
      p.layer = layer.name;
      p.value = kernels::Tensor(s.params[k], dtype);
      p.lr_mult = settings.lr_mult;
      p.decay_mult = settings.decay_mult;
      if (!take_given(spec, p.name, p.value)) initialize(p.value, settings.init, rng, fans.at(k).fan_out, fans.at(k).fan_in);
      params.push_back(std::move(p));
    }
  }
  return params;
}

std::vector<InitialState> make_initial_state(const ModelSpec& spec, kernels::DType dtype) {
  const std::vector<LayerShapes> shapes = infer_shapes(spec, 1);
  std::vector<InitialState> state;
  for (std::size_t i = 0; i < spec.layers.size(); ++i)
    for (const StateShape& s : shapes[i].state) {
      InitialState t{spec.layers[i].name + "." + s.suffix, spec.layers[i].name, kernels::Tensor(s.shape, dtype)};
      if (!take_given(spec, t.name, t.value))
        for (std::int64_t k = 0; k < t.value.numel(); ++k) t.value.set(k, s.initial);
      state.push_back(std::move(t));
    }
  return state;
}

}  // namespace ablate::models
