// ONNX Flatten (opsets 9, 11, 13) with axis 1, and Reshape (opsets 5, 13, 14) to [N, -1]:
// [N, C, H, W] -> [N, C*H*W] in row-major (NCHW) order. ablate's inner_product flattens its
// input the same way, so both add no layer: the output is an alias of the input value (its
// ONNX shape [N, F] kept for the mappings after it).
// A Reshape of an image [N, C, H, W] to [N, C, H·W] is an alias too, for the Transpose after it
// that makes its positions tokens (transpose.cpp: ViT's patch embedding).
// Refused: any other axis; a Reshape whose shape is computed by the graph or is neither [N, -1]
// ([0, -1], [-1, F] and [N, F] with N the batch and F the features also read as [N, -1]) nor
// [N, C, H·W] (N as -1, 0 or the batch; H·W as -1 or the number).
#include "models/onnx/ops/op_kit.h"

namespace ablate::models::onnx_import::ops {
namespace {

OnnxValue flattened(const OnnxValue& x) {
  OnnxValue y = x;
  std::int64_t features = 1;
  for (std::size_t d = 1; d < x.shape.size(); ++d) features *= x.shape[d];
  y.shape = {x.shape.at(0), features};
  return y;
}

void flatten(NodeContext& c) {
  c.refuse_unknown_attributes({"axis"});
  const OnnxValue& x = c.activation(0);
  const std::int64_t axis = c.get_int("axis", 1), rank = static_cast<std::int64_t>(x.shape.size());
  if (axis < -rank || axis > rank)
    c.refuse("axis", "= " + std::to_string(axis) + " is outside [-" + std::to_string(rank) + ", " + std::to_string(rank) + "]");
  if ((axis < 0 ? axis + rank : axis) != 1)  // Flatten's axis may be the rank itself: [-r, r]
    c.refuse("axis", "= " + std::to_string(axis) + " is not supported (axis 1: [N, features], as inner_product flattens)");
  c.set_output(0, flattened(x));
}

void reshape(NodeContext& c) {
  c.refuse_unknown_attributes({"allowzero"});
  const OnnxValue& x = c.activation(0);
  const GivenValues& shape = c.constant(1);
  if (shape.values.size() == 3 && x.shape.size() == 4) {  // [N, C, H, W] -> [N, C, H*W]
    const auto n = static_cast<std::int64_t>(shape.values[0]), ch = static_cast<std::int64_t>(shape.values[1]),
               hw = static_cast<std::int64_t>(shape.values[2]);
    const bool batch_ok = n == x.shape[0] || n == -1 || (n == 0 && c.get_int("allowzero", 0) == 0);
    if (batch_ok && (ch == x.shape[1] || (ch == 0 && c.get_int("allowzero", 0) == 0)) &&
        (hw == -1 || hw == x.shape[2] * x.shape[3])) {
      OnnxValue y = x;
      y.shape = {x.shape[0], x.shape[1], x.shape[2] * x.shape[3]};
      c.set_output(0, y);
      return;
    }
  }
  const OnnxValue y = flattened(x);
  bool fits = shape.values.size() == 2;
  if (fits) {
    const auto n = static_cast<std::int64_t>(shape.values[0]), f = static_cast<std::int64_t>(shape.values[1]);
    const bool batch_ok = n == x.shape[0] || (n == 0 && c.get_int("allowzero", 0) == 0) || (n == -1 && f != -1);
    fits = batch_ok && (f == -1 || f == y.shape[1]) && !(n == -1 && f == -1);
  }
  if (!fits) {
    std::string text;
    for (double v : shape.values) text += (text.empty() ? "" : ", ") + std::to_string(static_cast<std::int64_t>(v));
    c.refuse("input 1 (shape)", "= [" + text + "] of " + dims_string(x.shape) +
                                    " is not supported (only [N, -1]: flattening for an inner_product; [N, C, H·W]: an "
                                    "image's positions before their Transpose to tokens; a split into heads only as part "
                                    "of the attention pattern)");
  }
  c.set_output(0, y);
}

ABLATE_ONNX_OP("Flatten", flatten);
ABLATE_ONNX_OP("Reshape", reshape);

}  // namespace
}  // namespace ablate::models::onnx_import::ops
