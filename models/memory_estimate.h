// Memory a training configuration needs, estimated before training from the shapes alone,
// so that a batch that cannot fit fails at once with the estimate instead of swapping:
//   parameters      every weight and bias
//   gradients       one per parameter
//   optimizer       state per parameter: 1 (SGD momentum history / velocity), 2 (Adam m, v)
//   activations     every layer's output and its gradient (2 x), plus the input batch
//   workspace       the largest im2col buffer of a convolution for the whole batch,
//                   [N, C*KH*KW, OH*OW] (the batched convolution mode; per-image modes use less)
// Strategies differ (in-place layers, planned buffers, caching) by less than the activation
// term; the estimate is meant as an upper bound of the tensor bytes.
#pragma once

#include <cstdint>
#include <string>

#include "kernels/tensor.h"
#include "models/model_spec.h"

namespace ablate::models {

struct MemoryEstimate {
  double parameter_bytes = 0, gradient_bytes = 0, optimizer_bytes = 0;
  double activation_bytes = 0, workspace_bytes = 0;
  double total() const {
    return parameter_bytes + gradient_bytes + optimizer_bytes + activation_bytes + workspace_bytes;
  }
};

// `optimizer`: caffe_sgd, torch_sgd, gd (one state tensor each) or adam (two).
MemoryEstimate estimate_training_memory(const ModelSpec& spec, std::int64_t batch, kernels::DType dtype,
                                        const std::string& optimizer);

}  // namespace ablate::models
