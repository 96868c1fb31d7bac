// ONNX Constant (opsets 9, 11, 12, 13: attribute `value`, a tensor) and Identity (opsets 1, 13,
// 14): no layer. A Constant's output is a constant value (a Reshape's shape, a bias an Add
// folds in); an Identity's output is an alias of its input.
// Refused: a Constant given by sparse_value or the value_* scalar attributes.
#include "models/onnx/ops/op_kit.h"

namespace ablate::models::onnx_import::ops {
namespace {

void constant(NodeContext& c) {
  c.refuse_unknown_attributes({"value"});
  if (!c.has("value")) c.refuse("value", "is required (a tensor)");
  for (const auto& a : c.node().attribute())
    if (a.name() == "value") {
      if (a.type() != onnx::AttributeProto::TENSOR) c.refuse("value", "is not a tensor");
      OnnxValue v;
      v.constant = tensor_values(a.t(), "Constant '" + c.node().output(0) + "'");
      v.shape = v.constant->shape;
      c.set_output(0, v);
    }
}

void identity(NodeContext& c) {
  c.refuse_unknown_attributes({});
  c.set_output(0, c.input(0));
}

ABLATE_ONNX_OP("Constant", constant);
ABLATE_ONNX_OP("Identity", identity);

}  // namespace
}  // namespace ablate::models::onnx_import::ops
