// Shared pieces of the layer type descriptions (see layer_kit.h).
#include "models/layers/layer_kit.h"

#include "kernels/tensor.h"

namespace ablate::models::layers {

ValueRule kind(ValueKind k) { return ValueRule{k, {}}; }
ValueRule choice(std::vector<std::string> choices) { return ValueRule{ValueKind::choice, std::move(choices)}; }

std::vector<KeyRule> param_keys(const std::string& suffix) {
  return {{suffix + "_init", kind(ValueKind::initializer)},
          {suffix + "_lr_mult", kind(ValueKind::non_negative_real)},
          {suffix + "_decay_mult", kind(ValueKind::non_negative_real)}};
}

std::vector<KeyRule> weight_keys() { return param_keys("weight"); }

std::vector<KeyRule> bias_keys() { return param_keys("bias"); }

std::vector<KeyRule> joined(std::vector<std::vector<KeyRule>> groups) {
  std::vector<KeyRule> keys;
  for (auto& group : groups) keys.insert(keys.end(), group.begin(), group.end());
  return keys;
}

void require_key(const LayerSpec& layer, const char* key) {
  if (!layer.has(key)) layer.fail(std::string("needs key '") + key + "'");
}

void check_bias_keys(const LayerSpec& layer) {
  if (layer.get_string("bias", "true") == "false")
    for (const char* key : {"bias_init", "bias_lr_mult", "bias_decay_mult"})
      if (layer.has(key)) layer.fail(std::string("'") + key + "' given but bias=false");
}

void require_rank(const LayerSpec& layer, const Dims& input, std::size_t rank, const char* expected) {
  if (input.size() != rank)
    layer.fail(std::string("expects input ") + expected + ", got " + kernels::shape_string(input) +
               (rank == 4 && input.size() == 3 ? " (tokens [N, T, D]: a layer over images cannot read them)" : ""));
}

void require_tokens(const LayerSpec& layer, const Dims& input, const char* what) {
  if (input.size() != 3)
    layer.fail(std::string("expects tokens [N, T, D] (") + what + "), got " + kernels::shape_string(input) +
               (input.size() == 4 ? ": an image [N, C, H, W] becomes tokens through a 'tokens' layer" : ""));
}

void same_shape(const LayerSpec&, const ModelSpec&, LayerShapes& s) { s.output = s.input; }

decltype(LayerType::shape) same_shape_of_rank(std::size_t rank, const char* expected) {
  return [rank, expected](const LayerSpec& layer, const ModelSpec&, LayerShapes& s) {
    require_rank(layer, s.input, rank, expected);
    s.output = s.input;
  };
}

LayerType activation_type(const std::string& name, kernels::Activation a) {
  LayerType t;
  t.name = name;
  t.shape = same_shape;
  t.activation = [a](const LayerSpec&) { return a; };
  return t;
}

LayerType loss_type(const std::string& name) {
  LayerType t;
  t.name = name;
  t.loss = true;
  t.shape = [](const LayerSpec& layer, const ModelSpec& model, LayerShapes& s) {
    if (s.input.size() != 2 || s.input[1] != model.classes)
      layer.fail("expects input [N, " + std::to_string(model.classes) + "] (classes " + std::to_string(model.classes) +
                 ")");
    s.output = {1};
  };
  return t;
}

std::vector<ParamFans> weight_bias_fans(const LayerShapes& s, double fan_out, double weight_fan_in) {
  const Dims& weight = s.params.at(0);
  const double numel = static_cast<double>(kernels::shape_numel(weight));
  const double fan_in = weight_fan_in > 0 ? weight_fan_in : numel / static_cast<double>(weight[0]);
  if (fan_out <= 0) fan_out = numel / static_cast<double>(weight[1]);
  std::vector<ParamFans> fans{{fan_out, weight_fan_in}};
  if (s.params.size() > 1) fans.push_back({fan_out, fan_in});
  return fans;
}

double weight_flops(const LayerShapes& s) {
  const Dims& weight = s.params.at(0);
  return 2 * static_cast<double>(kernels::shape_numel(s.output)) * static_cast<double>(kernels::shape_numel(weight)) /
         static_cast<double>(weight[0]);
}

}  // namespace ablate::models::layers
