// ReLU, TanH and Sigmoid forward and backward (see activation_layer.h).
#include "graph/layerwise/activation_layer.h"

namespace ablate::graph::layerwise {

ActivationLayer::ActivationLayer(const models::LayerSpec& spec, kernels::Backend& backend, kernels::DType dtype,
                                 kernels::Activation activation)
    : Layer(spec, backend, dtype), activation_(activation) {}

const char* ActivationLayer::type() const {
  switch (activation_) {
    case kernels::Activation::relu: return "ReLU";
    case kernels::Activation::tanh: return "TanH";
    case kernels::Activation::sigmoid: return "Sigmoid";
  }
  return "?";
}

void ActivationLayer::reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) {
  if (top[0] != bottom[0]) top[0]->reshape(bottom[0]->shape());
}

void ActivationLayer::forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext&) {
  backend_.activation_forward(activation_, bottom[0]->data(), top[0]->data());
}

void ActivationLayer::backward(const std::vector<Blob*>& top, bool propagate_down, const std::vector<Blob*>& bottom) {
  if (!propagate_down) return;
  backend_.activation_backward(activation_, top[0]->data(), top[0]->diff(), bottom[0]->diff());
}

}  // namespace ablate::graph::layerwise
