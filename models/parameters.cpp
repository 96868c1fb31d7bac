// The initial parameters of a model in the one canonical order every strategy shares:
// layers in file order, weight then bias, all drawn from one std::mt19937_64(seed).
#include "models/parameters.h"

#include <random>

#include "models/initializers.h"
#include "models/layer_params.h"
#include "models/shape_inference.h"

namespace ablate::models {
namespace {

// Theano's conv fan_out (filters * k^2 / pool^2) when the first reader of `conv` pools.
double conv_pool_fan_out(const ModelSpec& spec, std::size_t conv_index, const kernels::Shape& weight) {
  const std::string& conv = spec.layers[conv_index].name;
  for (std::size_t i = conv_index + 1; i < spec.layers.size(); ++i) {
    const LayerSpec& reader = spec.layers[i];
    if (reader.input != conv) continue;
    if (reader.type != "pooling") return 0;
    const double pool = reader.require_int("kernel");
    return static_cast<double>(weight[0] * weight[2] * weight[3]) / (pool * pool);
  }
  return 0;
}

InitialParameter make_parameter(const LayerSpec& layer, const char* suffix, const kernels::Shape& shape,
                                const ParamSettings& settings, kernels::DType dtype, std::mt19937_64& rng,
                                double fan_out, double fan_in) {
  InitialParameter p;
  p.name = layer.name + "." + suffix;
  p.layer = layer.name;
  p.value = kernels::Tensor(shape, dtype);
  p.lr_mult = settings.lr_mult;
  p.decay_mult = settings.decay_mult;
  initialize(p.value, settings.init, rng, fan_out, fan_in);
  return p;
}

}  // namespace

std::vector<InitialParameter> make_initial_parameters(const ModelSpec& spec, kernels::DType dtype,
                                                      std::uint64_t seed) {
  const std::vector<LayerShapes> shapes = infer_shapes(spec, 1);
  std::mt19937_64 rng(seed);
  std::vector<InitialParameter> params;
  for (std::size_t i = 0; i < spec.layers.size(); ++i) {
    const LayerSpec& layer = spec.layers[i];
    const auto& param_shapes = shapes[i].params;
    if (param_shapes.empty()) continue;
    if (layer.type == "bias") {
      params.push_back(make_parameter(layer, "bias", param_shapes[0], bias_settings(layer), dtype, rng, 0, 0));
      continue;
    }
    const kernels::Shape& weight = param_shapes[0];
    const double numel = static_cast<double>(kernels::shape_numel(weight));
    double fan_in = numel / static_cast<double>(weight[0]);
    double fan_out = numel / static_cast<double>(weight[1]);
    double weight_fan_in = 0;  // 0: the weight's own
    if (layer.type == "convolution") {
      if (double pooled = conv_pool_fan_out(spec, i, weight); pooled > 0) fan_out = pooled;
    } else if (layer.type == "conv_map") {
      // Torch's SpatialConvolutionMap:reset(): stdv = 1/sqrt(KH * KW * inputs per output plane)
      fan_in = weight_fan_in = static_cast<double>(weight[1] * weight[2]) * layer.require_int("fan_in");
      fan_out = static_cast<double>(layer_outputs(layer) * weight[1] * weight[2]);
    }
    params.push_back(make_parameter(layer, "weight", weight, weight_settings(layer), dtype, rng, fan_out, weight_fan_in));
    if (param_shapes.size() > 1)
      params.push_back(make_parameter(layer, "bias", param_shapes[1], bias_settings(layer), dtype, rng, fan_out, fan_in));
  }
  return params;
}

}  // namespace ablate::models
