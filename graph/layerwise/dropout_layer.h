// DropoutLayer: inverted dropout as Caffe's Dropout and TF's tf.nn.dropout (keep = 1 -
// Caffe's dropout_ratio). In training, mask = (u < keep) / keep from Backend::dropout_mask
// with a seed derived from the engine seed, the layer name and the iteration
// (graph/dropout_seed.h), so every strategy and backend draws the same mask;
// y = x * mask and dx = dy * mask. In testing it is the identity. Runs in place, as
// Caffe's prototxts write it.
#pragma once

#include "graph/layerwise/layer.h"

namespace ablate::graph::layerwise {

class DropoutLayer final : public Layer {
 public:
  DropoutLayer(const models::LayerSpec& spec, kernels::Backend& backend, kernels::DType dtype);
  const char* type() const override { return "Dropout"; }
  void reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) override;
  void forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext& context) override;
  void run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                    const std::vector<Blob*>& bottom) override;

 private:
  double keep_;
  Blob mask_;
  bool masked_ = false;  // whether the last forward applied a mask (train phase)
};

}  // namespace ablate::graph::layerwise
