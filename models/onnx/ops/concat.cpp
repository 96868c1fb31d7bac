// ONNX Concat (opsets 4, 11, 13): the inputs joined along `axis`. Axis 1 (the channel axis;
// negative axes count from the end) maps to an ablate `concat` layer input=a,b,... (Caffe's
// Concat); every input an activation.
// Refused: any other axis, a constant input.
#include "models/onnx/ops/op_kit.h"

namespace ablate::models::onnx_import::ops {
namespace {

void concat(NodeContext& c) {
  c.refuse_unknown_attributes({"axis"});
  if (!c.has("axis")) c.refuse("axis", "is required");
  const std::size_t rank = c.activation(0).shape.size();
  const int axis = normalized_axis(c, "axis", c.get_int("axis", 1), rank);
  if (axis != 1) c.refuse("axis", "= " + std::to_string(c.get_int("axis", 1)) + " is not supported (ablate's concat joins along axis 1)");
  std::vector<std::string> inputs;
  Dims shape = c.activation(0).shape;
  shape[1] = 0;
  for (int k = 0; k < c.input_count(); ++k) {
    const OnnxValue& x = c.activation(k);
    if (x.shape.size() != rank) c.refuse("input " + std::to_string(k), "is " + dims_string(x.shape) + "; the inputs differ in rank");
    inputs.push_back(x.layer);
    shape[1] += x.shape[1];
  }
  if (inputs.size() < 2) c.refuse("input 1", "is absent; ablate's concat joins two or more inputs");
  OnnxValue y;
  y.layer = c.add_layer("concat", {}, inputs);
  y.shape = shape;
  c.set_output(0, y);
}

ABLATE_ONNX_OP("Concat", concat);

}  // namespace
}  // namespace ablate::models::onnx_import::ops
