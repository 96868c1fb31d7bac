// Defaults and geometry of the layer keys; the pooling and SAME rules themselves are the
// kernels' (kernels/op_params.h): Caffe's ceil rounding, TF SAME, floor "valid".
#include "models/layer_params.h"

#include <numeric>
#include <random>
#include <stdexcept>

#include "models/layer_catalog.h"

namespace ablate::models {
namespace {

std::string size2(int h, int w) { return std::to_string(h) + "x" + std::to_string(w); }

kernels::PoolKind pool_kind(const LayerSpec& layer) {
  return layer.get_string("mode", "max") == "avg" ? kernels::PoolKind::avg : kernels::PoolKind::max;
}

}  // namespace

ConvGeometry conv_geometry(const LayerSpec& layer, int in_h, int in_w) {
  ConvGeometry g;
  g.outputs = layer.require_int("outputs");
  const int kernel = layer.get_int("kernel", 0);
  g.kernel_h = layer.get_int("kernel_h", kernel);
  g.kernel_w = layer.get_int("kernel_w", kernel);
  g.bias = layer_has_bias(layer);
  const int stride = layer.get_int("stride", 1);
  const std::string padding = layer.get_string("padding", "explicit");
  if (padding == "same") {
    try {
      g.params = kernels::make_same_conv2d_params(g.kernel_h, g.kernel_w, stride, in_h, in_w);
    } catch (const std::invalid_argument& e) {
      layer.fail(e.what());
    }
  } else {
    const int pad = padding == "explicit" ? layer.get_int("pad", 0) : 0;
    g.params.pad_top = g.params.pad_bottom = g.params.pad_left = g.params.pad_right = pad;
  }
  g.params.stride_h = g.params.stride_w = stride;
  // 64-bit sums: a model file may write any int for a size or a pad.
  const std::int64_t padded_h = std::int64_t{in_h} + g.params.pad_top + g.params.pad_bottom;
  const std::int64_t padded_w = std::int64_t{in_w} + g.params.pad_left + g.params.pad_right;
  if (g.kernel_h > padded_h || g.kernel_w > padded_w)
    layer.fail("kernel " + size2(g.kernel_h, g.kernel_w) + " is larger than its padded input " +
                    std::to_string(padded_h) + "x" + std::to_string(padded_w) + " (input " + size2(in_h, in_w) +
                    ", padding " + padding + ")");
  try {
    g.out_h = kernels::conv2d_out_size(in_h, g.kernel_h, stride, g.params.pad_top, g.params.pad_bottom);
    g.out_w = kernels::conv2d_out_size(in_w, g.kernel_w, stride, g.params.pad_left, g.params.pad_right);
  } catch (const std::invalid_argument& e) {
    layer.fail(e.what());  // the kernels' own geometry checks, named after this layer
  }
  return g;
}

kernels::Pool2dParams pool_params(const LayerSpec& layer, int in_h, int in_w) {
  const int kernel = layer.require_int("kernel");
  const int stride = layer.get_int("stride", kernel);
  const int pad = layer.get_int("pad", 0);
  const std::string padding_name = layer.get_string("padding", "valid");
  const kernels::PoolPadding padding = kernels::parse_pool_padding(padding_name);
  const std::int64_t padded_h = in_h + 2 * std::int64_t{pad}, padded_w = in_w + 2 * std::int64_t{pad};
  if (padding != kernels::PoolPadding::tf_same && (kernel > padded_h || kernel > padded_w))
    layer.fail("kernel " + size2(kernel, kernel) + " is larger than its padded input " + std::to_string(padded_h) +
                    "x" + std::to_string(padded_w) + " (input " + size2(in_h, in_w) + ", padding " + padding_name + ")");
  kernels::Pool2dParams p;
  try {
    p = kernels::make_pool2d_params(pool_kind(layer), kernel, stride, pad, padding, in_h, in_w);
  } catch (const std::invalid_argument& e) {
    layer.fail(e.what());  // the kernels' own geometry checks, named after this layer
  }
  return p;
}

kernels::Pool2dParams global_pool_params(int in_h, int in_w) {
  kernels::Pool2dParams p;
  p.kind = kernels::PoolKind::avg;
  p.kernel_h = in_h;
  p.kernel_w = in_w;
  p.stride_h = p.stride_w = 1;
  p.out_h = p.out_w = 1;
  p.pad_bottom_limit = p.pad_right_limit = 0;
  return p;
}

kernels::LrnParams lrn_params(const LayerSpec& layer) {
  kernels::LrnParams p;
  p.size = layer.get_int("size", p.size);
  p.alpha = layer.get_double("alpha", p.alpha);
  p.beta = layer.get_double("beta", p.beta);
  p.k = layer.get_double("k", p.k);
  return p;
}

std::vector<std::int32_t> connection_table(const LayerSpec& layer, int in_channels) {
  const int outputs = layer.require_int("outputs");
  const int fan_in = layer.require_int("fan_in");
  if (fan_in > in_channels)
    layer.fail("fan_in " + std::to_string(fan_in) + " is more than the " + std::to_string(in_channels) +
                    " input planes");
  std::mt19937_64 rng(static_cast<std::uint64_t>(layer.get_int("table_seed", 1)));
  // A permutation of the input planes, redrawn once its whole chunks of fan_in are used up.
  std::vector<std::int32_t> perm(static_cast<std::size_t>(in_channels));
  auto redraw = [&] {
    std::iota(perm.begin(), perm.end(), 0);
    for (std::size_t i = perm.size(); i > 1; --i) std::swap(perm[i - 1], perm[rng() % i]);  // Fisher-Yates
  };
  redraw();
  const int chunks = in_channels / fan_in;
  std::vector<std::int32_t> table;
  table.reserve(static_cast<std::size_t>(2 * outputs * fan_in));
  for (int o = 0, chunk = 0; o < outputs; ++o) {
    for (int j = 0; j < fan_in; ++j) {
      table.push_back(perm[static_cast<std::size_t>(chunk * fan_in + j)]);
      table.push_back(o);
    }
    if (++chunk == chunks) {
      redraw();
      chunk = 0;
    }
  }
  return table;
}

double dropout_keep(const LayerSpec& layer) { return layer.get_double("keep", 0.5); }

int layer_outputs(const LayerSpec& layer) { return layer.require_int("outputs"); }

bool layer_has_bias(const LayerSpec& layer) { return layer.get_string("bias", "true") == "true"; }

BatchNormParams batch_norm_params(const LayerSpec& layer) {
  BatchNormParams p;
  p.style = layer.get_string("momentum_style", "torch") == "caffe" ? MomentumStyle::caffe : MomentumStyle::torch;
  p.epsilon = layer.get_double("eps", p.epsilon);
  p.affine = layer.get_string("affine", p.style == MomentumStyle::torch ? "true" : "false") == "true";
  p.momentum = layer.get_double("momentum", p.momentum);
  p.moving_average_fraction = layer.get_double("moving_average_fraction", p.moving_average_fraction);
  return p;
}

std::vector<StateShape> batch_norm_state(const BatchNormParams& p, std::int64_t channels) {
  if (p.style == MomentumStyle::torch) return {{"running_mean", {channels}, 0.0}, {"running_var", {channels}, 1.0}};
  return {{"mean_sum", {channels}, 0.0}, {"var_sum", {channels}, 0.0}, {"scale_factor", {1}, 0.0}};
}

int attention_heads(const LayerSpec& layer) { return layer.get_int("heads", 1); }

double attention_keep(const LayerSpec& layer) { return layer.get_double("keep", 1.0); }

std::string attention_dropout_key(const LayerSpec& layer) { return layer.name + "/weights_dropout"; }

const std::vector<std::string>& attention_parameter_suffixes() {
  static const std::vector<std::string> suffixes{"query_weight", "query_bias", "key_weight", "key_bias",
                                                 "value_weight", "value_bias", "out_weight", "out_bias"};
  return suffixes;
}

double layer_norm_epsilon(const LayerSpec& layer) { return layer.get_double("eps", 1e-5); }

kernels::Pool2dParams token_mean_pool_params(std::int64_t tokens, std::int64_t width) {
  kernels::Pool2dParams p = global_pool_params(static_cast<int>(tokens), 1);
  p.out_w = static_cast<int>(width);
  return p;
}

ParamSettings param_settings(const LayerSpec& layer, const std::string& suffix) {
  std::string init = suffix == "weight" ? "xavier" : "constant:0";
  if (const LayerType* type = find_layer_type(layer.type))
    for (const auto& [name, rule] : type->default_inits)
      if (name == suffix) init = rule;
  return {layer.get_string(suffix + "_init", init), layer.get_double(suffix + "_lr_mult", 1.0),
          layer.get_double(suffix + "_decay_mult", 1.0)};
}

ParamSettings weight_settings(const LayerSpec& layer) { return param_settings(layer, "weight"); }
ParamSettings bias_settings(const LayerSpec& layer) { return param_settings(layer, "bias"); }

}  // namespace ablate::models
