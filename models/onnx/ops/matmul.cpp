// ONNX MatMul (opsets 9, 13) with a constant right operand: Y [N, O] = A [N, I] B [I, O]
// (numpy matmul of two matrices), as PyTorch's Linear exports at some opsets (MatMul, then an
// Add of the bias). Maps to one ablate `inner_product` layer, bias=false, given
// <layer>.weight = B transposed to [O, I]; an Add of a constant [O] after it folds into its
// bias (add.cpp).
// Refused: a B computed by the graph, an A or B that is not a matrix (batched matmul).
#include "models/onnx/ops/op_kit.h"

namespace ablate::models::onnx_import::ops {
namespace {

void matmul(NodeContext& c) {
  c.refuse_unknown_attributes({});
  const OnnxValue& a = c.activation(0);
  const GivenValues& b = c.constant(1);
  if (a.shape.size() != 2) c.refuse("input 0 (A)", "is " + dims_string(a.shape) + "; expected [N, I] (2-D MatMul only)");
  if (b.shape.size() != 2 || b.shape[0] != a.shape[1])
    c.refuse("input 1 (B)", "is " + dims_string(b.shape) + "; expected [" + std::to_string(a.shape[1]) + ", O] (2-D MatMul only)");
  const std::string layer = c.add_layer("inner_product", {{"outputs", std::to_string(b.shape[1])}, {"bias", "false"}}, {a.layer});
  c.give(layer + ".weight", transposed(b));
  c.set_output(0, layer_output(c, layer));
}

ABLATE_ONNX_OP("MatMul", matmul);

}  // namespace
}  // namespace ablate::models::onnx_import::ops
