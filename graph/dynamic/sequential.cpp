// Parameters on the device and the forward walk of Sequential (see sequential.h).
#include "graph/dynamic/sequential.h"

#include <algorithm>
#include <map>

#include "graph/blocked_layers.h"
#include "graph/dynamic/module_factory.h"
#include "graph/dynamic/ops.h"
#include "kernels/op_label.h"
#include "models/parameters.h"

namespace ablate::graph::dynamic {

Sequential::Sequential(const models::CheckedModel& model, Context& context, kernels::DType dtype, std::uint64_t seed)
    : model_(model) {
  make_parameters(context, dtype, seed);
}

namespace {

// A host initial value on the backend's device, from the backend's own allocator (parameters
// and state live as long as the engine: not the tape's cache).
kernels::Tensor on_backend(kernels::Backend& backend, const kernels::Tensor& host, kernels::DType dtype) {
  kernels::Tensor value(host.shape(), dtype, &backend.allocator());
  if (value.device() == kernels::Device::cpu)
    value.copy_from(host);
  else
    backend.copy(host, value);
  return value;
}

}  // namespace

void Sequential::make_parameters(Context& context, kernels::DType dtype, std::uint64_t seed) {
  kernels::Backend& backend = context.backend();
  std::map<std::string, std::vector<Variable>> by_layer;
  for (models::InitialParameter& init : models::make_initial_parameters(model_.spec(), dtype, seed)) {
    Variable leaf(context, on_backend(backend, init.value, dtype), /*requires_grad=*/true);
    leaf.set_grad(kernels::Tensor(init.value.shape(), dtype, &backend.allocator()));
    leaf.zero_grad();
    by_layer[init.layer].push_back(leaf);
    parameters_.push_back({init.name, leaf, init.lr_mult, init.decay_mult});
  }
  std::map<std::string, std::vector<kernels::Tensor>> state_by_layer;
  for (models::InitialState& init : models::make_initial_state(model_.spec(), dtype)) {
    state_.push_back({init.name, on_backend(backend, init.value, dtype)});
    state_by_layer[init.layer].push_back(state_.back().value);
  }
  for (std::size_t i = 0; i < model_.size(); ++i) {
    const models::LayerSpec& layer = model_.layer(i);
    modules_.push_back(make_module(layer, model_.type(i), by_layer[layer.name], state_by_layer[layer.name]));
  }
}

// The blocked layout (context.h): a layer that takes its inputs blocked as they are
// (graph/blocked_layers.h) reads them so; any other reads a blocked input converted to NCHW,
// the conversion labelled with the producer's layer (its cost, as the layer-wise strategy
// counts its LayoutConvert layers).
void Sequential::to_layer_layout(std::size_t i, std::vector<Variable>& xs) const {
  std::vector<int> blocks;
  for (const Variable& v : xs) blocks.push_back(v.value().channel_block());
  if (std::none_of(blocks.begin(), blocks.end(), [](int b) { return b != 0; })) return;
  const models::LayerSpec& layer = model_.layer(i);
  const int layer_block = xs[0].context().backend().channel_block_for(xs[0].dtype(), layer.name);
  if (layer_takes_blocked(layer.type, layer_block, blocks)) return;
  for (std::size_t k = 0; k < xs.size(); ++k) {
    if (blocks[k] == 0) continue;
    const models::LayerSpec& producer = model_.layer(static_cast<std::size_t>(model_.inputs(i)[k]));
    const kernels::OpLabelScope label({"forward", producer.name, producer.type});
    xs[k] = to_channel_block(xs[k], 0);
  }
}

Sequential::Output Sequential::forward(const Variable& x, const ForwardContext& context) {
  std::vector<Variable> outputs(modules_.size());
  std::vector<Variable> xs;
  for (std::size_t i = 0; i < modules_.size(); ++i) {
    xs.clear();
    for (const int input : model_.inputs(i)) xs.push_back(input < 0 ? x : outputs[static_cast<std::size_t>(input)]);
    if (x.context().blocked_layout()) to_layer_layout(i, xs);
    const kernels::OpLabelScope label({"forward", model_.layer(i).name, model_.layer(i).type});
    outputs[i] = modules_[i]->forward(xs, context);
  }
  return {outputs.back(), xs.front()};  // the scores: what the loss layer read (NCHW)
}

}  // namespace ablate::graph::dynamic
