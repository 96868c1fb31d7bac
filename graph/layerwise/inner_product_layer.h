// InnerProductLayer: Caffe's InnerProduct (Torch's Linear after View, TF's matmul + bias).
// The input is flattened per sample, as Caffe does with axis 1:
//   bottom [N, ...] viewed as [N, I], I = C*H*W -> top [N, O]; weight [O, I], bias [O].
#pragma once

#include "graph/layerwise/layer.h"

namespace ablate::graph::layerwise {

class InnerProductLayer final : public Layer {
 public:
  using Layer::Layer;
  const char* type() const override { return "InnerProduct"; }
  void reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) override;
  void forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext& context) override;
  void run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                    const std::vector<Blob*>& bottom) override;

 protected:
  void layer_setup(const std::vector<Blob*>& bottom) override;

 private:
  kernels::Shape flat_shape(const Blob& bottom) const;  // [N, I]
  bool bias_ = true;
  kernels::Tensor no_bias_;
};

}  // namespace ablate::graph::layerwise
