// ONNX ReduceMean (opsets 1 to 17: `axes` an attribute) over axis 1 of tokens [N, T, D] with
// keepdims 0: the mean over the tokens, ViT's average-pooling head (torch `x.mean(dim=1)`). Maps
// to an ablate `token_mean` layer, [N, T, D] -> [N, D].
// Refused: other axes or ranks, keepdims 1, axes absent (every axis).
#include "models/onnx/ops/op_kit.h"

namespace ablate::models::onnx_import::ops {
namespace {

void reduce_mean(NodeContext& c) {
  c.refuse_unknown_attributes({"axes", "keepdims"});
  const OnnxValue& x = c.activation(0);
  if (x.shape.size() != 3 || x.layer == kModelInput || c.ablate_shape(x.layer).size() != 3)
    c.refuse("input 0", "is " + dims_string(x.shape) + "; ablate maps ReduceMean over the tokens of [N, T, D] only");
  const std::vector<std::int64_t> axes = c.get_ints("axes");
  if (axes.size() != 1 || normalized_axis(c, "axes", axes[0], 3) != 1)
    c.refuse("axes", "= " + dims_string(axes) + " is not supported (axis 1, the tokens of [N, T, D])");
  if (c.get_int("keepdims", 1) != 0) c.refuse("keepdims", "= 1 is not supported (0: [N, D], as token_mean gives)");
  c.set_output(0, layer_output(c, c.add_layer("token_mean", {}, {x.layer})));
}

ABLATE_ONNX_OP("ReduceMean", reduce_mean);

}  // namespace
}  // namespace ablate::models::onnx_import::ops
