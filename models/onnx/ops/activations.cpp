// ONNX Relu (opsets 6, 13, 14), Tanh (6, 13), Sigmoid (6, 13): elementwise, any shape.
// Map to the ablate layers `relu`, `tanh`, `sigmoid` (the same functions).
#include "models/onnx/ops/op_kit.h"

namespace ablate::models::onnx_import::ops {
namespace {

void elementwise(NodeContext& c, const char* type) {
  c.refuse_unknown_attributes({});
  const OnnxValue& x = c.activation(0);
  OnnxValue y;
  y.layer = c.add_layer(type, {}, {x.layer});
  y.shape = x.shape;
  c.set_output(0, y);
}

void relu(NodeContext& c) { elementwise(c, "relu"); }
void tanh_op(NodeContext& c) { elementwise(c, "tanh"); }
void sigmoid(NodeContext& c) { elementwise(c, "sigmoid"); }

ABLATE_ONNX_OP("Relu", relu);
ABLATE_ONNX_OP("Tanh", tanh_op);
ABLATE_ONNX_OP("Sigmoid", sigmoid);

}  // namespace
}  // namespace ablate::models::onnx_import::ops
