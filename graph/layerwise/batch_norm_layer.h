// BatchNormLayer: Caffe's BatchNorm (and, with affine=true, the Scale layer Caffe pairs it
// with), for PyTorch's and Caffe's momentum conventions (models/layers/batch_norm.cpp):
//   bottom [N, C, H, W] or [N, C] -> top of the same shape
//   train phase: y from the batch's mean and biased variance, which then update the running
//                statistics (graph/batch_norm_statistics.h) held in state blobs
//   test phase:  y from the running statistics (Caffe's use_global_stats)
// Parameter blobs weight [C], bias [C] when affine. Its backward reads the bottom data, so the
// layer writes a top of its own; the batch statistics of the forward stay for the backward.
#pragma once

#include "graph/layerwise/layer.h"
#include "models/layer_params.h"

namespace ablate::graph::layerwise {

class BatchNormLayer final : public Layer {
 public:
  BatchNormLayer(const models::LayerSpec& spec, kernels::Backend& backend, kernels::DType dtype);
  const char* type() const override { return "BatchNorm"; }
  void reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) override;
  void forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext& context) override;
  void run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                    const std::vector<Blob*>& bottom) override;

 protected:
  void layer_setup(const std::vector<Blob*>& bottom) override;

 private:
  const kernels::Tensor& weight() const { return params_.affine ? blobs()[0]->data() : none_; }
  const kernels::Tensor& bias() const { return params_.affine ? blobs()[1]->data() : none_; }

  models::BatchNormParams params_;
  kernels::Tensor mean_, var_;  // [C]: the last forward's statistics (batch or running)
  kernels::Tensor none_;
};

}  // namespace ablate::graph::layerwise
