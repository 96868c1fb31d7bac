// ONNX MatMul (opsets 9, 13) with a constant right operand B [I, O], as PyTorch's Linear exports
// at some opsets (MatMul, then an Add of the bias):
//   A [N, I]        -> Y [N, O] = A B: one ablate `inner_product` layer
//   A [N, T, I]     -> Y [N, T, O], B applied to every token: one ablate `linear` layer (nn.Linear
//                      on tokens)
// both bias=false, given <layer>.weight = B transposed to [O, I]; an Add of a constant [O] after
// it folds into its bias (add.cpp).
// Refused: a B computed by the graph (outside the attention pattern, patterns/), a B that is not
// a matrix, an A of another rank.
#include "models/onnx/ops/op_kit.h"

namespace ablate::models::onnx_import::ops {
namespace {

void matmul(NodeContext& c) {
  c.refuse_unknown_attributes({});
  const OnnxValue& a = c.activation(0);
  const GivenValues& b = c.constant(1);
  if (a.shape.size() != 2 && a.shape.size() != 3)
    c.refuse("input 0 (A)", "is " + dims_string(a.shape) + "; expected [N, I] or tokens [N, T, I]");
  if (b.shape.size() != 2 || b.shape[0] != a.shape.back())
    c.refuse("input 1 (B)", "is " + dims_string(b.shape) + "; expected [" + std::to_string(a.shape.back()) + ", O] (a constant matrix)");
  const bool tokens = a.shape.size() == 3;
  if (tokens && (a.layer == kModelInput || c.ablate_shape(a.layer) != a.shape))
    c.refuse("input 0 (A)", "is " + dims_string(a.shape) + " in ONNX but not a token tensor to ablate");
  const std::string layer =
      c.add_layer(tokens ? "linear" : "inner_product", {{"outputs", std::to_string(b.shape[1])}, {"bias", "false"}}, {a.layer});
  c.give(layer + ".weight", transposed(b));
  c.set_output(0, layer_output(c, layer));
}

ABLATE_ONNX_OP("MatMul", matmul);

}  // namespace
}  // namespace ablate::models::onnx_import::ops
