// LossLayer: the base of Caffe's loss layers. Bottoms are the scores [N, K] and the labels
// i32 [N]; the loss is the mean over the batch (Caffe's normalization VALID with no ignored
// label, TF's reduce_mean, Torch's sizeAverage), with loss weight 1, so backward scales the
// per-sample gradient by 1 / N. The labels never receive a diff.
#pragma once

#include "graph/layerwise/layer.h"

namespace ablate::graph::layerwise {

class LossLayer : public Layer {
 public:
  using Layer::Layer;
  int bottom_count() const override { return 2; }
  int top_count() const override { return 0; }
  double loss() const override { return loss_; }
  void reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) override;

 protected:
  // Scale of the per-sample gradient: loss_weight / N.
  double gradient_scale(const Blob& scores) const { return 1.0 / static_cast<double>(scores.shape()[0]); }
  double loss_ = 0.0;
};

}  // namespace ablate::graph::layerwise
