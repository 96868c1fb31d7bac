// The layer types of the four frameworks' default models and their keys:
//   convolution (Caffe Convolution, TF conv2d SAME/VALID, Torch SpatialConvolutionMM,
//   Theano conv2d), conv_map (Torch SpatialConvolutionMap over a random connection table),
//   pooling (Caffe's ceil rounding, TF SAME, floor "valid"), inner_product,
//   bias (Theano's conv -> pool -> +bias order), relu/tanh/sigmoid, lrn (Caffe
//   ACROSS_CHANNELS: alpha is divided by size), dropout (keep probability, as TF),
//   softmax_loss (Caffe SoftmaxWithLoss, TF softmax_cross_entropy + mean), log_softmax and
//   nll_loss (Torch LogSoftMax + ClassNLLCriterion, Theano's -mean(log p[y])).
#include "models/layer_catalog.h"

#include "models/model_spec.h"

namespace ablate::models {
namespace {

ValueRule kind(ValueKind k) { return ValueRule{k, {}}; }
ValueRule choice(std::vector<std::string> choices) { return ValueRule{ValueKind::choice, std::move(choices)}; }

std::vector<KeyRule> weight_keys() {
  return {{"weight_init", kind(ValueKind::initializer)},
          {"weight_lr_mult", kind(ValueKind::non_negative_real)},
          {"weight_decay_mult", kind(ValueKind::non_negative_real)}};
}

std::vector<KeyRule> bias_keys() {
  return {{"bias_init", kind(ValueKind::initializer)},
          {"bias_lr_mult", kind(ValueKind::non_negative_real)},
          {"bias_decay_mult", kind(ValueKind::non_negative_real)}};
}

// Every type accepts `input=LAYER`; it is listed last.
std::vector<KeyRule> with_input(std::vector<std::vector<KeyRule>> groups) {
  std::vector<KeyRule> keys;
  for (auto& group : groups) keys.insert(keys.end(), group.begin(), group.end());
  keys.push_back({"input", kind(ValueKind::word)});
  return keys;
}

std::vector<LayerTypeInfo> make_catalog() {
  const KeyRule outputs{"outputs", kind(ValueKind::positive_integer)};
  const KeyRule has_bias{"bias", kind(ValueKind::boolean)};
  std::vector<LayerTypeInfo> types;
  types.push_back({"convolution",
                   with_input({{outputs,
                                {"kernel", kind(ValueKind::positive_integer)},
                                {"kernel_h", kind(ValueKind::positive_integer)},
                                {"kernel_w", kind(ValueKind::positive_integer)},
                                {"stride", kind(ValueKind::positive_integer)},
                                {"pad", kind(ValueKind::non_negative_integer)},
                                {"padding", choice({"explicit", "same", "valid"})},
                                has_bias},
                               weight_keys(),
                               bias_keys()}),
                   false});
  // Torch's SpatialConvolutionMap over nn.tables.random(C, outputs, fan_in): each output
  // plane sees fan_in input planes drawn with table_seed (models/layer_params.h).
  types.push_back({"conv_map",
                   with_input({{outputs,
                                {"kernel", kind(ValueKind::positive_integer)},
                                {"stride", kind(ValueKind::positive_integer)},
                                {"pad", kind(ValueKind::non_negative_integer)},
                                {"fan_in", kind(ValueKind::positive_integer)},
                                {"table_seed", kind(ValueKind::non_negative_integer)},
                                has_bias},
                               weight_keys(),
                               bias_keys()}),
                   false});
  types.push_back({"pooling",
                   with_input({{{"mode", choice({"max", "avg"})},
                                {"kernel", kind(ValueKind::positive_integer)},
                                {"stride", kind(ValueKind::positive_integer)},
                                {"pad", kind(ValueKind::non_negative_integer)},
                                {"padding", choice({"caffe_ceil", "tf_same", "valid"})}}}),
                   false});
  types.push_back({"inner_product", with_input({{outputs, has_bias}, weight_keys(), bias_keys()}), false});
  types.push_back({"bias", with_input({bias_keys()}), false});
  for (const char* activation : {"relu", "tanh", "sigmoid"}) types.push_back({activation, with_input({}), false});
  types.push_back({"lrn",
                   with_input({{{"size", kind(ValueKind::odd_positive_integer)},
                                {"alpha", kind(ValueKind::non_negative_real)},
                                {"beta", kind(ValueKind::non_negative_real)},
                                {"k", kind(ValueKind::positive_real)}}}),
                   false});
  types.push_back({"dropout", with_input({{{"keep", kind(ValueKind::keep_probability)}}}), false});
  types.push_back({"softmax_loss", with_input({}), true});
  types.push_back({"log_softmax", with_input({}), false});
  types.push_back({"nll_loss", with_input({}), true});
  return types;
}

}  // namespace

const std::vector<LayerTypeInfo>& layer_catalog() {
  static const std::vector<LayerTypeInfo> catalog = make_catalog();
  return catalog;
}

const LayerTypeInfo* find_layer_type(const std::string& type) {
  for (const auto& info : layer_catalog())
    if (info.type == type) return &info;
  return nullptr;
}

const KeyRule* find_key(const LayerTypeInfo& info, const std::string& key) {
  for (const auto& rule : info.keys)
    if (rule.key == key) return &rule;
  return nullptr;
}

bool is_loss_type(const std::string& type) {
  const LayerTypeInfo* info = find_layer_type(type);
  return info && info->loss;
}

const std::map<std::string, std::vector<std::string>>& layer_types() {
  static const std::map<std::string, std::vector<std::string>> types = [] {
    std::map<std::string, std::vector<std::string>> out;
    for (const auto& info : layer_catalog())
      for (const auto& rule : info.keys) out[info.type].push_back(rule.key);
    return out;
  }();
  return types;
}

}  // namespace ablate::models
