// Shape of every layer's input, output and parameters for a batch of N samples:
//   convolution    [N,C,H,W] -> [N,K,OH,OW]     weight [K,C,KH,KW], bias [K]
//   conv_map       [N,C,H,W] -> [N,K,OH,OW]     weight [K*fan_in,KH,KW], bias [K]
//   pooling        [N,C,H,W] -> [N,C,OH,OW]     (Caffe ceil, TF SAME or floor rounding)
//   inner_product  [N,...]   -> [N,O]           weight [O,I], I = product of the input's
//                                               non-batch dimensions (flattened as C*H*W)
//   bias           any       -> same            bias [C] (dimension 1)
//   lrn            [N,C,H,W] -> same;  relu, tanh, sigmoid, dropout: any -> same
//   log_softmax    [N,F]     -> [N,F]
//   softmax_loss, nll_loss  [N,classes] -> [1]
#include "models/shape_inference.h"

#include <map>
#include <stdexcept>

#include "kernels/tensor.h"
#include "models/layer_params.h"

namespace ablate::models {
namespace {

using Dims = std::vector<std::int64_t>;

[[noreturn]] void fail(const LayerSpec& layer, const std::string& what) {
  throw std::invalid_argument(layer.source + ": layer '" + layer.name + "' (" + layer.type + "): " + what);
}

void require_rank(const LayerSpec& layer, const Dims& input, std::size_t rank, const char* expected) {
  if (input.size() != rank)
    fail(layer, std::string("expects input ") + expected);
}

void infer_layer(const ModelSpec& spec, const LayerSpec& layer, LayerShapes& s) {
  const Dims& in = s.input;
  const std::string& type = layer.type;
  if (type == "convolution") {
    require_rank(layer, in, 4, "[N, C, H, W]");
    ConvGeometry g = conv_geometry(layer, static_cast<int>(in[2]), static_cast<int>(in[3]));
    s.output = {in[0], g.outputs, g.out_h, g.out_w};
    s.params.push_back({g.outputs, in[1], g.kernel_h, g.kernel_w});
    if (g.bias) s.params.push_back({g.outputs});
  } else if (type == "conv_map") {
    require_rank(layer, in, 4, "[N, C, H, W]");
    ConvGeometry g = conv_geometry(layer, static_cast<int>(in[2]), static_cast<int>(in[3]));
    const std::int64_t fan_in = layer.require_int("fan_in");
    if (fan_in > in[1])
      fail(layer, "fan_in " + std::to_string(fan_in) + " is more than the " + std::to_string(in[1]) + " input planes");
    s.output = {in[0], g.outputs, g.out_h, g.out_w};
    s.params.push_back({g.outputs * fan_in, g.kernel_h, g.kernel_w});
    if (g.bias) s.params.push_back({g.outputs});
  } else if (type == "pooling") {
    require_rank(layer, in, 4, "[N, C, H, W]");
    kernels::Pool2dParams p = pool_params(layer, static_cast<int>(in[2]), static_cast<int>(in[3]));
    s.output = {in[0], in[1], p.out_h, p.out_w};
  } else if (type == "inner_product") {
    if (in.size() < 2) fail(layer, "expects input [N, ...]");
    const std::int64_t features = kernels::shape_numel(in) / in[0];
    const int outputs = layer_outputs(layer);
    s.output = {in[0], outputs};
    s.params.push_back({outputs, features});
    if (layer_has_bias(layer)) s.params.push_back({outputs});
  } else if (type == "bias") {
    if (in.size() < 2) fail(layer, "expects input [N, C, ...]");
    s.output = in;
    s.params.push_back({in[1]});
  } else if (type == "lrn") {
    require_rank(layer, in, 4, "[N, C, H, W]");
    s.output = in;
  } else if (type == "log_softmax") {
    require_rank(layer, in, 2, "[N, F]");
    s.output = in;
  } else if (type == "softmax_loss" || type == "nll_loss") {
    if (in.size() != 2 || in[1] != spec.classes)
      fail(layer, "expects input [N, " + std::to_string(spec.classes) + "] (classes " + std::to_string(spec.classes) +
                      ")");
    s.output = {1};
  } else {  // relu, tanh, sigmoid, dropout
    s.output = in;
  }
}

// Every shape handed on must have an element count that fits int64 (kernels::shape_numel
// throws otherwise), so the memory estimate and the engines can count and allocate it.
void check_sizes(const LayerSpec& layer, const LayerShapes& s) {
  try {
    kernels::shape_numel(s.output);
    for (const Dims& p : s.params) kernels::shape_numel(p);
  } catch (const std::invalid_argument& e) {
    fail(layer, e.what());
  }
}

}  // namespace

std::vector<LayerShapes> infer_shapes(const ModelSpec& spec, std::int64_t batch) {
  if (batch < 1) throw std::invalid_argument("infer_shapes: batch must be positive, got " + std::to_string(batch));
  if (spec.input_shape.size() != 3)
    throw std::invalid_argument(spec.source + ": model '" + spec.name + "' needs an input shape C H W");
  const Dims model_input = {batch, spec.input_shape[0], spec.input_shape[1], spec.input_shape[2]};
  try {
    kernels::shape_numel(model_input);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(spec.source + ": model '" + spec.name + "': input of batch " + std::to_string(batch) +
                                ": " + e.what());
  }
  std::vector<LayerShapes> shapes;
  std::map<std::string, std::size_t> index;
  for (const LayerSpec& layer : spec.layers) {
    LayerShapes s;
    s.name = layer.name;
    if (layer.input.empty()) {
      s.input = model_input;
    } else {
      auto it = index.find(layer.input);
      if (it == index.end()) fail(layer, "input '" + layer.input + "' is not a layer defined before it");
      s.input = shapes[it->second].output;
    }
    try {
      infer_layer(spec, layer, s);
      check_sizes(layer, s);
    } catch (const std::invalid_argument& e) {
      // Name the full input shape for every geometry problem of this layer.
      throw std::invalid_argument(std::string(e.what()) + " (layer input " + kernels::shape_string(s.input) + ")");
    }
    index[layer.name] = shapes.size();
    shapes.push_back(std::move(s));
  }
  return shapes;
}

}  // namespace ablate::models
