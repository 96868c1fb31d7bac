// ReLU, TanH and Sigmoid forward and backward (see activation_layer.h).
#include "graph/layerwise/activation_layer.h"
#include "graph/layerwise/layer_factory.h"

namespace ablate::graph::layerwise {

ActivationLayer::ActivationLayer(const models::LayerSpec& spec, kernels::Backend& backend, kernels::DType dtype,
                                 kernels::Activation activation, bool backward_from_input)
    : Layer(spec, backend, dtype), activation_(activation), backward_from_input_(backward_from_input) {}

const char* ActivationLayer::type() const {
  switch (activation_) {
    case kernels::Activation::relu: return "ReLU";
    case kernels::Activation::tanh: return "TanH";
    case kernels::Activation::sigmoid: return "Sigmoid";
    default: return kernels::activation_name(activation_);
  }
}

void ActivationLayer::reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) {
  if (top[0] != bottom[0]) top[0]->reshape(bottom[0]->shape());
}

void ActivationLayer::forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext&) {
  backend_.activation_forward(activation_, bottom[0]->data(), top[0]->data());
}

void ActivationLayer::run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                                   const std::vector<Blob*>& bottom) {
  if (!propagate_down[0]) return;
  const kernels::Tensor& read = backward_from_input_ ? bottom[0]->data() : top[0]->data();
  backend_.activation_backward(activation_, read, top[0]->diff(), bottom[0]->diff());
}

ABLATE_REGISTER_ACTIVATION_BUILDER(layer_registry(),
                                   [](const models::LayerSpec& spec, const models::LayerType& type,
                                      kernels::Backend& backend, kernels::DType dtype) -> std::unique_ptr<Layer> {
                                     return std::make_unique<ActivationLayer>(spec, backend, dtype, type.activation(spec),
                                                                              type.backward_reads_input);
                                   });

}  // namespace ablate::graph::layerwise
