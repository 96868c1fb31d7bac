// LayerNormLayer: layer normalisation over the last axis (models/layers/layer_norm.cpp), the
// layer a Caffe fork would add (Caffe 1.0 has none: its MVN layer has no affine part):
//   bottom [N, ..., D] -> top of the same shape; weight [D], bias [D]
// through Backend::layer_norm_forward / layer_norm_backward. The row statistics of the forward
// (mean, rstd [R]) stay for the backward, which also reads the bottom data: a top of its own.
#pragma once

#include "graph/layerwise/layer.h"

namespace ablate::graph::layerwise {

class LayerNormLayer final : public Layer {
 public:
  LayerNormLayer(const models::LayerSpec& spec, kernels::Backend& backend, kernels::DType dtype);
  const char* type() const override { return "LayerNorm"; }
  void reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) override;
  void forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext& context) override;
  void run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                    const std::vector<Blob*>& bottom) override;

 protected:
  void layer_setup(const std::vector<Blob*>& bottom) override;

 private:
  double epsilon_;
  kernels::Tensor mean_, rstd_;  // [R]: the last forward's row statistics
};

}  // namespace ablate::graph::layerwise
