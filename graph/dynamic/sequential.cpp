// Model checks, parameters on the device and the forward walk of Sequential (see sequential.h).
#include "graph/dynamic/sequential.h"

#include <map>
#include <stdexcept>

#include "graph/dynamic/module_factory.h"
#include "models/layer_catalog.h"
#include "models/parameters.h"
#include "models/shape_inference.h"

namespace ablate::graph::dynamic {
namespace {

std::string where(const models::LayerSpec& layer) {
  return (layer.source.empty() ? "" : layer.source + ": ") + "layer '" + layer.name + "' (" + layer.type + ")";
}

// The spec with every layer's input named (an empty input after the first layer means the
// previous layer, as the model parser writes it).
models::ModelSpec with_named_inputs(models::ModelSpec spec) {
  for (std::size_t i = 1; i < spec.layers.size(); ++i)
    if (spec.layers[i].input.empty()) spec.layers[i].input = spec.layers[i - 1].name;
  return spec;
}

}  // namespace

Sequential::Sequential(const models::ModelSpec& spec, Context& context, kernels::DType dtype, std::uint64_t seed)
    : spec_(with_named_inputs(spec)) {
  if (dtype != kernels::DType::f32 && dtype != kernels::DType::f64)
    throw std::invalid_argument("model '" + spec.name + "': precision " + kernels::dtype_name(dtype) +
                                "; expected f32 or f64");
  if (spec_.input_shape.size() != 3)
    throw std::invalid_argument("model '" + spec.name + "' (" + spec.source + ") needs an input shape C H W");
  if (spec_.layers.empty()) throw std::invalid_argument("model '" + spec.name + "' (" + spec.source + ") has no layers");
  check_layers();
  models::infer_shapes(spec_, 1);  // every layer's geometry, and the loss's [N, classes] input
  make_parameters(context, dtype, seed);
}

void Sequential::check_layers() const {
  std::map<std::string, int> index;
  for (std::size_t i = 0; i < spec_.layers.size(); ++i) {
    const models::LayerSpec& layer = spec_.layers[i];
    check_module_type(layer);
    if (index.count(layer.name)) throw std::invalid_argument(where(layer) + ": the layer name is used twice");
    if (!layer.input.empty() && !index.count(layer.input))
      throw std::invalid_argument(where(layer) + ": input '" + layer.input + "' is not a layer defined before it");
    const bool is_last = i + 1 == spec_.layers.size();
    if (models::is_loss_type(layer.type) != is_last)
      throw std::invalid_argument(where(layer) + (is_last ? ": the last layer must be a loss (softmax_loss or nll_loss)"
                                                          : ": a loss layer must be the last layer"));
    index[layer.name] = static_cast<int>(i);
  }
}

void Sequential::make_parameters(Context& context, kernels::DType dtype, std::uint64_t seed) {
  kernels::Backend& backend = context.backend();
  std::map<std::string, std::vector<Variable>> by_layer;
  for (models::InitialParameter& init : models::make_initial_parameters(spec_, dtype, seed)) {
    kernels::Tensor value(init.value.shape(), dtype, &backend.allocator());
    if (value.device() == kernels::Device::cpu)
      value.copy_from(init.value);
    else
      backend.copy(init.value, value);
    Variable leaf(context, std::move(value), /*requires_grad=*/true);
    leaf.set_grad(kernels::Tensor(init.value.shape(), dtype, &backend.allocator()));
    leaf.zero_grad();
    by_layer[init.layer].push_back(leaf);
    parameters_.push_back({init.name, leaf, init.lr_mult, init.decay_mult});
  }
  std::map<std::string, int> index;
  for (std::size_t i = 0; i < spec_.layers.size(); ++i) {
    const models::LayerSpec& layer = spec_.layers[i];
    modules_.push_back(make_module(layer, by_layer[layer.name]));
    input_index_.push_back(layer.input.empty() ? -1 : index.at(layer.input));
    index[layer.name] = static_cast<int>(i);
  }
}

Sequential::Output Sequential::forward(const Variable& x, const ForwardContext& context) {
  std::vector<Variable> outputs(modules_.size());
  for (std::size_t i = 0; i < modules_.size(); ++i) {
    const Variable& in = input_index_[i] < 0 ? x : outputs[static_cast<std::size_t>(input_index_[i])];
    outputs[i] = modules_[i]->forward(in, context);
  }
  const int scores = input_index_.back();
  return {outputs.back(), scores < 0 ? x : outputs[static_cast<std::size_t>(scores)]};
}

}  // namespace ablate::graph::dynamic
