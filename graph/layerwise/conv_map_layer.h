// ConvMapLayer: Torch7's nn.SpatialConvolutionMap as a Caffe-style layer (Torch's CIFAR-10
// demo net: 3 -> 16 planes with fan_in 1, then 16 -> 256 with fan_in 4). Each output plane
// reads only the input planes its connection table names, one kernel per connection.
//   bottom [N, C, H, W] -> top [N, K, OH, OW]; weight [K * fan_in, KH, KW], bias [K] (optional);
//   table i32 [K * fan_in, 2] of (input plane, output plane), models::connection_table's, held
//   on the backend's device for the layer's life (part of the model, not a parameter).
// Geometry (explicit padding, stride) is models::conv_geometry, shared by all strategies.
#pragma once

#include "graph/layerwise/layer.h"
#include "models/layer_params.h"

namespace ablate::graph::layerwise {

class ConvMapLayer final : public Layer {
 public:
  using Layer::Layer;
  const char* type() const override { return "SpatialConvolutionMap"; }
  void reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) override;
  void forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext& context) override;
  void run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                    const std::vector<Blob*>& bottom) override;
  const kernels::Tensor& table() const { return table_; }

 protected:
  void layer_setup(const std::vector<Blob*>& bottom) override;

 private:
  models::ConvGeometry geometry_;
  std::int64_t in_planes_ = 0;
  kernels::Tensor table_;    // i32 [T, 2] on the backend's device
  kernels::Tensor no_bias_;  // empty: the backend skips the bias
};

}  // namespace ablate::graph::layerwise
