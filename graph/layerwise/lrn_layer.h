// LRNLayer: Caffe's LRN with norm_region ACROSS_CHANNELS (TF's local_response_normalization
// with depth_radius r = (size - 1) / 2 and alpha_tf = alpha / size):
//   y = x / (k + alpha / size * sum over `size` channels centred on c of x^2)^beta
//   bottom [N, C, H, W] -> top of the same shape; the workspace keeps the backend's scale.
#pragma once

#include "graph/layerwise/layer.h"

namespace ablate::graph::layerwise {

class LrnLayer final : public Layer {
 public:
  LrnLayer(const models::LayerSpec& spec, kernels::Backend& backend, kernels::DType dtype);
  const char* type() const override { return "LRN"; }
  void reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) override;
  void forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext& context) override;
  void run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                    const std::vector<Blob*>& bottom) override;

 private:
  kernels::LrnParams params_;
  kernels::Tensor workspace_;
};

}  // namespace ablate::graph::layerwise
