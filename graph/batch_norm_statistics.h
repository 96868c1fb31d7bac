// The running statistics of a batch_norm layer (models/layers/batch_norm.cpp), kept by one
// function for all three strategies, so the layer-wise layer, the dynamic module and the static
// graph's update op change them identically. After each training forward, from the batch's
// mean and biased variance over M = N*H*W values per channel (unbiased: u = M/(M-1) var, or
// var when M = 1, as Caffe):
//   torch  running_mean = (1 - m) running_mean + m mean             (PyTorch's _BatchNorm,
//          running_var  = (1 - m) running_var  + m u                 Torch7's BatchNormalization)
//   caffe  scale_factor = f scale_factor + 1                         (Caffe's BatchNormLayer::
//          mean_sum = f mean_sum + mean,  var_sum = f var_sum + u     Forward_cpu, f =
//                                                                      moving_average_fraction)
// At test time the inference forward reads
//   torch  running_mean, running_var as they are
//   caffe  mean_sum / scale_factor, var_sum / scale_factor (0 while the factor is 0, as Caffe)
// The state tensors are models::batch_norm_state's, in its order, on the backend's device.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/backend.h"
#include "models/layer_params.h"

namespace ablate::graph {

// One training step's update of `state` from the batch statistics mean, var [C] of `values`
// (M) values per channel.
void update_running_statistics(kernels::Backend& backend, const models::BatchNormParams& p, std::int64_t values,
                               const kernels::Tensor& mean, const kernels::Tensor& var,
                               const std::vector<kernels::Tensor*>& state);

// Writes the statistics the inference forward reads into mean, var [C].
void inference_statistics(kernels::Backend& backend, const models::BatchNormParams& p,
                          const std::vector<const kernels::Tensor*>& state, kernels::Tensor& mean,
                          kernels::Tensor& var);

// M, the values per channel of an input [N, C] or [N, C, H, W].
std::int64_t values_per_channel(const kernels::Shape& input);

}  // namespace ablate::graph
