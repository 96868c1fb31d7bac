// InnerProductLayer: Caffe's InnerProduct (Torch's Linear after View, TF's matmul + bias).
// The input is flattened per sample, as Caffe does with axis 1:
//   bottom [N, ...] viewed as [N, I], I = C*H*W -> top [N, O]; weight [O, I], bias [O].
// For the `linear` type (last_axis) it maps the last axis instead, as Caffe's InnerProduct with
// axis: -1 (a transformer's projections over every token in one GEMM):
//   bottom [N, ..., I] viewed as [R, I], R = N*... -> top [N, ..., O].
#pragma once

#include "graph/layerwise/layer.h"

namespace ablate::graph::layerwise {

class InnerProductLayer final : public Layer {
 public:
  // last_axis: the `linear` type (the rows are every index but the last).
  InnerProductLayer(const models::LayerSpec& spec, kernels::Backend& backend, kernels::DType dtype,
                    bool last_axis = false)
      : Layer(spec, backend, dtype), last_axis_(last_axis) {}
  const char* type() const override { return "InnerProduct"; }
  void reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) override;
  void forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext& context) override;
  void run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                    const std::vector<Blob*>& bottom) override;

 protected:
  void layer_setup(const std::vector<Blob*>& bottom) override;

 private:
  kernels::Shape flat_shape(const Blob& bottom) const;  // [N, I] (last_axis: [R, I])
  // The top viewed as [N, O] (last_axis: [R, O]).
  kernels::Tensor flat_top(kernels::Tensor& t) const { return t.reshaped({t.numel() / t.shape().back(), t.shape().back()}); }
  bool last_axis_ = false;
  bool bias_ = true;
  kernels::Tensor no_bias_;
};

}  // namespace ablate::graph::layerwise
