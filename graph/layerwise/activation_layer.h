// Element-wise activation layers: Caffe's ReLU, TanH and Sigmoid, one class over
// Backend::activation_forward/backward, whose backward reads the top data
// (relu: y > 0, tanh: 1 - y^2, sigmoid: y (1 - y)), so a layer may overwrite its bottom;
// for an activation whose backward reads x (GELU) it hands the backend the bottom data.
// Whether it runs in place (ReLU, as Caffe's prototxts write it) is its type's rule
// (models::LayerType::in_place). It is the layer of every catalogued activation type.
#pragma once

#include "graph/layerwise/layer.h"

namespace ablate::graph::layerwise {

class ActivationLayer final : public Layer {
 public:
  // `backward_from_input`: the backward reads x, not y (models::LayerType::backward_reads_input).
  ActivationLayer(const models::LayerSpec& spec, kernels::Backend& backend, kernels::DType dtype,
                  kernels::Activation activation, bool backward_from_input = false);
  const char* type() const override;
  void reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) override;
  void forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext& context) override;
  void run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                    const std::vector<Blob*>& bottom) override;

 private:
  kernels::Activation activation_;
  bool backward_from_input_;
};

}  // namespace ablate::graph::layerwise
