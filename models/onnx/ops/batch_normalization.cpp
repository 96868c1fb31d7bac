// ONNX BatchNormalization (opsets 9, 14, 15) in inference mode:
//   Y = scale[c] (X - mean[c]) / sqrt(var[c] + epsilon) + B[c]   over [N, C, ...]
// Maps to an ablate `batch_norm` layer (models/layers/batch_norm.cpp: y = weight[c] (x -
// mean[c]) / sqrt(var[c] + eps) + bias[c], test time on the running statistics), momentum_style
// torch:
//   eps = epsilon; momentum = 1 - ONNX momentum (ONNX: running = m running + (1 - m) batch;
//   PyTorch / ablate torch: running = (1 - momentum) running + momentum batch); affine
//   given <layer>.weight = scale, <layer>.bias = B, <layer>.running_mean = input_mean,
//   <layer>.running_var = input_var (state, not parameters)
// Refused: training_mode 1 or the running-statistics outputs used (training mode), momentum 1
// (a torch momentum of 0 never updates), statistics computed by the graph, an old opset's
// attributes (spatial, is_test, consumed_inputs).
#include "models/onnx/ops/op_kit.h"

namespace ablate::models::onnx_import::ops {
namespace {

void batch_normalization(NodeContext& c) {
  c.refuse_unknown_attributes({"epsilon", "momentum", "training_mode"});
  if (c.get_int("training_mode", 0) != 0) c.refuse("training_mode", "= 1 is not supported (inference mode only)");
  for (int k = 1; k < 5 && k < c.node().output_size(); ++k)
    if (!c.node().output(k).empty())
      c.refuse("output " + std::to_string(k) + " ('" + c.node().output(k) + "')",
               "is requested: training-mode BatchNormalization is not supported (inference mode only)");
  const OnnxValue& x = c.activation(0);
  if (x.shape.size() < 2) c.refuse("input 0", "is " + dims_string(x.shape) + "; expected [N, C, ...]");
  const std::int64_t channels = x.shape[1];
  const char* names[] = {"", "scale", "B", "input_mean", "input_var"};
  for (int k = 1; k < 5; ++k)
    if (static_cast<std::int64_t>(c.constant(k).values.size()) != channels)
      c.refuse(std::string("input ") + std::to_string(k) + " (" + names[k] + ")",
               "is " + dims_string(c.constant(k).shape) + "; expected [" + std::to_string(channels) + "]");
  const double epsilon = c.get_float("epsilon", 1e-5);
  const double momentum = c.get_float("momentum", 0.9);
  if (!(epsilon > 0)) c.refuse("epsilon", "= " + number(epsilon) + "; ablate's eps is positive");
  if (!(momentum >= 0 && momentum < 1))
    c.refuse("momentum", "= " + number(momentum) + " is not supported (in [0, 1): ablate's torch momentum 1 - m is in (0, 1])");
  const std::string layer = c.add_layer(
      "batch_norm", {{"eps", number(epsilon)}, {"momentum", number(1.0 - momentum)}, {"momentum_style", "torch"}}, {x.layer});
  const char* tensors[] = {"", "weight", "bias", "running_mean", "running_var"};
  for (int k = 1; k < 5; ++k) c.give(layer + "." + tensors[k], {{channels}, c.constant(k).values});
  c.set_output(0, layer_output(c, layer));
}

ABLATE_ONNX_OP("BatchNormalization", batch_normalization);

}  // namespace
}  // namespace ablate::models::onnx_import::ops
