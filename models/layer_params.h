// A LayerSpec's keys resolved with their defaults into the numbers the engines and the
// kernels use, in one place so that every strategy reads a model file the same way.
// Defaults (models/README.md):
//   convolution   stride 1, pad 0, padding explicit, bias true (conv_map: the same, table_seed 1)
//   pooling       mode max, stride = kernel (Torch, Theano), pad 0, padding valid
//   lrn           size 5, alpha 1e-4, beta 0.75, k 1
//   dropout       keep 0.5
//   batch_norm    momentum_style torch (momentum 0.1, affine true) or caffe
//                 (moving_average_fraction 0.999, affine false), eps 1e-5
//   parameters    weight_init xavier (batch_norm: constant:1), bias_init constant:0, every
//                 lr/decay mult 1
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/op_params.h"
#include "models/layer_type.h"
#include "models/model_spec.h"

namespace ablate::models {

// Convolution of an in_h x in_w input: output [N, outputs, out_h, out_w].
//   explicit  pad on every side; out = (in + 2 pad - k) / stride + 1
//   valid     no padding
//   same      TF SAME: out = ceil(in / stride), the odd padded pixel at the bottom/right
struct ConvGeometry {
  int outputs = 0, kernel_h = 0, kernel_w = 0;
  kernels::Conv2dParams params;
  int out_h = 0, out_w = 0;
  bool bias = true;
};
// Throws naming the layer when the kernel is larger than the padded input.
ConvGeometry conv_geometry(const LayerSpec& layer, int in_h, int in_w);

// Pooling of an in_h x in_w input (kernels::make_pool2d_params); throws naming the layer when
// the kernel is larger than the padded input, pad >= kernel (Caffe's check) or a window
// would lie outside the input.
kernels::Pool2dParams pool_params(const LayerSpec& layer, int in_h, int in_w);
// global_avg_pool over an in_h x in_w input: an average pooling whose one window is the whole
// plane (stride 1, no padding), so every backend's pool2d computes it.
kernels::Pool2dParams global_pool_params(int in_h, int in_w);

kernels::LrnParams lrn_params(const LayerSpec& layer);
// The connection table of a conv_map layer, as Torch's nn.tables.random(C, outputs, fan_in):
// output planes in order, each taking the next fan_in planes of a random permutation of the
// C inputs (std::mt19937_64(table_seed), default 1), the permutation redrawn when its whole
// chunks of fan_in are used. Returns T = outputs * fan_in pairs, flattened [T, 2] as
// (input plane, output plane), for the kernels' conv2d_map ops. The geometry of a conv_map
// layer is conv_geometry's (explicit padding).
std::vector<std::int32_t> connection_table(const LayerSpec& layer, int in_channels);
double dropout_keep(const LayerSpec& layer);
int layer_outputs(const LayerSpec& layer);  // convolution, conv_map, inner_product: `outputs`
bool layer_has_bias(const LayerSpec& layer);  // convolution, conv_map, inner_product: the `bias` key

// A batch_norm layer (models/layers/batch_norm.cpp): batch statistics in training, running
// statistics at test time, kept by one of two conventions (graph/batch_norm_statistics.h):
//   torch  PyTorch's BatchNorm (Torch7's nn.BatchNormalization alike): running = (1 - m)
//          running + m batch, the variance unbiased; affine by default
//   caffe  Caffe's BatchNorm: sums weighted by moving_average_fraction and a scale factor that
//          normalises them; no affine part by default (Caffe pairs it with a Scale layer)
enum class MomentumStyle { torch, caffe };
struct BatchNormParams {
  MomentumStyle style = MomentumStyle::torch;
  double epsilon = 1e-5;
  bool affine = true;                       // a learnable scale (weight) and shift (bias) per channel
  double momentum = 0.1;                    // torch
  double moving_average_fraction = 0.999;  // caffe
};
BatchNormParams batch_norm_params(const LayerSpec& layer);
// Its state over C channels, in order (PyTorch's buffer names; Caffe's three blobs):
//   torch  running_mean [C] = 0, running_var [C] = 1
//   caffe  mean_sum [C] = 0, var_sum [C] = 0, scale_factor [1] = 0
std::vector<StateShape> batch_norm_state(const BatchNormParams& p, std::int64_t channels);

// Initializer and multipliers of a layer's parameter, from the keys <suffix>_init,
// <suffix>_lr_mult and <suffix>_decay_mult: the initializer defaults to the layer type's
// (LayerType::default_inits), else xavier for a weight and constant:0 for a bias; every
// multiplier to 1.
// Attention and token layers (a Vision Transformer's; models/layers/attention.cpp, layer_norm.cpp,
// token_mean.cpp).
// The head count of an attention layer (its `heads` key, default 1).
int attention_heads(const LayerSpec& layer);
// The keep probability of an attention layer's dropout on its weights P (its `keep` key, default
// 1: no dropout; PyTorch's nn.MultiheadAttention(dropout=1 - keep)), and the name its masks are
// drawn under (graph::dropout_seed), the same in every strategy.
double attention_keep(const LayerSpec& layer);
std::string attention_dropout_key(const LayerSpec& layer);
// The parameter suffixes of an attention layer in the canonical order every strategy shares:
// query, key, value and output projections, each a weight [D, D] then a bias [D].
const std::vector<std::string>& attention_parameter_suffixes();
// layer_norm's epsilon (its `eps` key, default 1e-5 as nn.LayerNorm).
double layer_norm_epsilon(const LayerSpec& layer);
// token_mean as an average pooling: tokens [N, T, D] viewed as [N, 1, T, D], one window of T x 1
// (output [N, 1, 1, D]).
kernels::Pool2dParams token_mean_pool_params(std::int64_t tokens, std::int64_t width);

struct ParamSettings {
  std::string init;
  double lr_mult = 1.0, decay_mult = 1.0;
};
ParamSettings param_settings(const LayerSpec& layer, const std::string& suffix);  // "weight" or "bias"
ParamSettings weight_settings(const LayerSpec& layer);
ParamSettings bias_settings(const LayerSpec& layer);

}  // namespace ablate::models
