// Pieces the layer type descriptions of models/layers/ share: the keys of learnable layers,
// the input-rank check, parameter fans and the FLOP rule of the layers that multiply by a
// weight. Each description itself is one file per type.
#pragma once

#include <string>
#include <vector>

#include "models/layer_type.h"

namespace ablate::models::layers {

ValueRule kind(ValueKind k);
ValueRule choice(std::vector<std::string> choices);
std::vector<KeyRule> weight_keys();  // weight_init, weight_lr_mult, weight_decay_mult
std::vector<KeyRule> bias_keys();    // bias_init, bias_lr_mult, bias_decay_mult
// <suffix>_init, <suffix>_lr_mult, <suffix>_decay_mult: the keys of one parameter.
std::vector<KeyRule> param_keys(const std::string& suffix);
// Throws naming the layer unless the input is [N, T, D] tokens (`what` says what the layer does).
void require_tokens(const LayerSpec& layer, const Dims& input, const char* what);
std::vector<KeyRule> joined(std::vector<std::vector<KeyRule>> groups);

// Throws "needs key 'KEY'" naming the layer when the key is absent.
void require_key(const LayerSpec& layer, const char* key);
// No bias_* keys when bias=false.
void check_bias_keys(const LayerSpec& layer);
// Throws "expects input EXPECTED, got SHAPE" naming the layer unless the input has `rank` dimensions.
void require_rank(const LayerSpec& layer, const Dims& input, std::size_t rank, const char* expected);

// The shape rule of an element-wise layer: output = input.
void same_shape(const LayerSpec& layer, const ModelSpec& model, LayerShapes& s);
// output = input, an input of `rank` dimensions (`expected` names them: "[N, C, H, W]").
decltype(LayerType::shape) same_shape_of_rank(std::size_t rank, const char* expected);
// An element-wise activation type: same shape, the Backend activation `a`.
LayerType activation_type(const std::string& name, kernels::Activation a);
// A loss type: input [N, classes] of the model, output [1] (the batch mean).
LayerType loss_type(const std::string& name);

// The fans of a weight (and its bias) as every strategy's initializers read them: the weight
// with fan_out and its own fan_in (or `weight_fan_in` when > 0); a bias with the weight's
// fan_out and fan_in (Torch's reset() draws the bias with the weight's 1/sqrt(fan_in)).
//   fan_in = weight numel / shape[0]; fan_out = `fan_out` when > 0, else numel / shape[1]
std::vector<ParamFans> weight_bias_fans(const LayerShapes& s, double fan_out = 0, double weight_fan_in = 0);

// 2 flops per (output value, weight value it reads): output numel x weight per output plane.
double weight_flops(const LayerShapes& s);

}  // namespace ablate::models::layers
