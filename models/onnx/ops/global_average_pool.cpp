// ONNX GlobalAveragePool (opset 1): Y [N, C, 1, 1] = the mean of each channel over its plane.
// Maps to an ablate `global_avg_pool` layer (the same mean: models/layers/global_avg_pool.cpp).
// Refused: an input that is not [N, C, H, W].
#include "models/onnx/ops/op_kit.h"

namespace ablate::models::onnx_import::ops {
namespace {

void global_average_pool(NodeContext& c) {
  c.refuse_unknown_attributes({});
  const OnnxValue& x = c.activation(0);
  if (x.shape.size() != 4) c.refuse("input 0", "is " + dims_string(x.shape) + "; ablate's global_avg_pool reads [N, C, H, W]");
  const std::string layer = c.add_layer("global_avg_pool", {}, {x.layer});
  c.set_output(0, layer_output(c, layer));
}

ABLATE_ONNX_OP("GlobalAveragePool", global_average_pool);

}  // namespace
}  // namespace ablate::models::onnx_import::ops
