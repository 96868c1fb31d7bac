// ConvolutionLayer: Caffe's Convolution (and TF conv2d SAME/VALID, Torch's
// SpatialConvolutionMM, Theano's conv2d without bias through bias=false).
//   bottom [N, C, H, W] -> top [N, K, OH, OW]; weight [K, C, KH, KW], bias [K] (optional).
// Geometry (explicit pad, valid, TF SAME) is models::conv_geometry, shared by all strategies.
#pragma once

#include "graph/layerwise/layer.h"
#include "models/layer_params.h"

namespace ablate::graph::layerwise {

class ConvolutionLayer final : public Layer {
 public:
  using Layer::Layer;
  const char* type() const override { return "Convolution"; }
  void reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) override;
  void forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext& context) override;
  void run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                    const std::vector<Blob*>& bottom) override;

 protected:
  void layer_setup(const std::vector<Blob*>& bottom) override;

 private:
  models::ConvGeometry geometry_;
  kernels::Tensor no_bias_;  // empty: the backend skips the bias
};

}  // namespace ablate::graph::layerwise
