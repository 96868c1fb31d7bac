// Element-wise activation layers: Caffe's ReLU, TanH and Sigmoid, one class over
// Backend::activation_forward/backward, whose backward reads the top data
// (relu: y > 0, tanh: 1 - y^2, sigmoid: y (1 - y)), so a layer may overwrite its bottom.
// ReLU runs in place as Caffe's prototxts write it (top = bottom); TanH and Sigmoid write
// a top of their own.
#pragma once

#include "graph/layerwise/layer.h"

namespace ablate::graph::layerwise {

class ActivationLayer final : public Layer {
 public:
  ActivationLayer(const models::LayerSpec& spec, kernels::Backend& backend, kernels::DType dtype,
                  kernels::Activation activation);
  const char* type() const override;
  void reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) override;
  void forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext& context) override;
  void backward(const std::vector<Blob*>& top, bool propagate_down, const std::vector<Blob*>& bottom) override;
  bool can_run_in_place() const override { return activation_ == kernels::Activation::relu; }
  // tanh and sigmoid read y at every element. ReLU reads only y > 0, which a ReLU or a
  // Dropout in place above it keeps wherever the diff they pass down is non-zero.
  bool backward_needs_top_data() const override { return activation_ != kernels::Activation::relu; }

 private:
  kernels::Activation activation_;
};

}  // namespace ablate::graph::layerwise
