// PoolingLayer: max or average pooling with the three padding conventions of the frameworks
// (Caffe's ceil rounding, TF SAME, floor "valid" of Torch and Theano), resolved by
// models::pool_params through kernels::make_pool2d_params; and global_avg_pool as Caffe's
// Pooling with global_pooling: true (AVE): one window over the whole plane
// (models::global_pool_params).
//   bottom [N, C, H, W] -> top [N, C, OH, OW]   (global: [N, C, 1, 1])
// The workspace (argmax indices or a library's own state) is filled by forward and read by
// backward, as Caffe's max_idx_ blob.
#pragma once

#include "graph/layerwise/layer.h"

namespace ablate::graph::layerwise {

class PoolingLayer final : public Layer {
 public:
  // `global`: the window is the whole plane, whatever the bottom's H and W (global_avg_pool).
  PoolingLayer(const models::LayerSpec& spec, kernels::Backend& backend, kernels::DType dtype, bool global = false);
  const char* type() const override { return "Pooling"; }
  void reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) override;
  void forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext& context) override;
  void run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                    const std::vector<Blob*>& bottom) override;

 private:
  bool global_;
  kernels::Pool2dParams params_;
  kernels::Tensor workspace_;
};

}  // namespace ablate::graph::layerwise
