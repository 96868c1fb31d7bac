// SoftmaxWithLossLayer: Caffe's SoftmaxWithLoss (TF's softmax_cross_entropy_with_logits +
// reduce_mean): prob = softmax(scores); loss = mean_n -log prob[n, label_n];
// dscores = (prob - onehot(label)) / N. The probabilities are kept for backward.
#pragma once

#include "graph/layerwise/loss_layer.h"

namespace ablate::graph::layerwise {

class SoftmaxWithLossLayer final : public LossLayer {
 public:
  SoftmaxWithLossLayer(const models::LayerSpec& spec, kernels::Backend& backend, kernels::DType dtype);
  const char* type() const override { return "SoftmaxWithLoss"; }
  void reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) override;
  void forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext& context) override;
  void run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                    const std::vector<Blob*>& bottom) override;

 private:
  Blob prob_;
};

}  // namespace ablate::graph::layerwise
