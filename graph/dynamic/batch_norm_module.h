// BatchNormModule: nn.BatchNormalization / nn.SpatialBatchNormalization of Torch7 (PyTorch's
// BatchNorm1d / BatchNorm2d), for PyTorch's and Caffe's momentum conventions
// (models/layers/batch_norm.cpp). Training: the tape's batch_norm op on the batch statistics,
// which then update the running statistics (graph/batch_norm_statistics.h), tensors the
// module holds beside its parameters; evaluation: batch_norm_inference on the running
// statistics. Torch's one-sample-at-a-time mode would normalise each sample by its own
// statistics: the module refuses it.
#pragma once

#include "graph/dynamic/module.h"
#include "models/layer_params.h"

namespace ablate::graph::dynamic {

class BatchNormModule final : public Module {
 public:
  // parameters: weight, bias [C] when affine (else none); state: models::batch_norm_state's.
  BatchNormModule(const models::LayerSpec& spec, std::vector<Variable> parameters, std::vector<kernels::Tensor> state);
  const char* type() const override { return "BatchNormalization"; }
  Variable forward(const Variable& x, const ForwardContext& context) override;

 private:
  models::BatchNormParams params_;
  std::vector<kernels::Tensor> state_;
};

}  // namespace ablate::graph::dynamic
