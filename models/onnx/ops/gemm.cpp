// ONNX Gemm (opsets 9, 11, 13): Y [N, O] = alpha A' B' + beta C, A' = A [N, I] (transA 0),
// B' = B^T when transB = 1 (B [O, I]), else B (B [I, O]); C broadcast to [N, O].
// Maps to one ablate `inner_product` layer (Caffe's InnerProduct, y = x W^T + b, weight
// [O, I]; it flattens its input, so a Flatten before it is only an alias):
//   outputs=O; given <layer>.weight = B as is with transB 1, B transposed with transB 0;
//   <layer>.bias = C as a [O] vector (C of shape [O], [1, O] or one element); no C: bias=false
// Refused, naming the attribute: transA 1, alpha != 1, beta != 1, a C that is not a vector
// over the outputs (a matrix bias [N, O]).
#include "models/onnx/ops/op_kit.h"

namespace ablate::models::onnx_import::ops {
namespace {

void gemm(NodeContext& c) {
  c.refuse_unknown_attributes({"alpha", "beta", "transA", "transB"});
  const OnnxValue& a = c.activation(0);
  const GivenValues& b = c.constant(1);
  if (c.get_int("transA", 0) != 0) c.refuse("transA", "= 1 is not supported (A is the activation [N, I])");
  if (c.get_float("alpha", 1.0) != 1.0) c.refuse("alpha", "= " + number(c.get_float("alpha", 1.0)) + " is not supported (alpha = 1 only)");
  if (c.get_float("beta", 1.0) != 1.0) c.refuse("beta", "= " + number(c.get_float("beta", 1.0)) + " is not supported (beta = 1 only)");
  if (a.shape.size() != 2) c.refuse("input 0 (A)", "is " + dims_string(a.shape) + "; expected [N, I]");
  if (b.shape.size() != 2) c.refuse("input 1 (B)", "is " + dims_string(b.shape) + "; expected a matrix");
  const bool trans_b = c.get_int("transB", 0) != 0;
  const GivenValues weight = trans_b ? b : transposed(b);  // [O, I]
  const std::int64_t outputs = weight.shape[0];
  if (weight.shape[1] != a.shape[1])
    c.refuse("input 1 (B)", "is " + dims_string(b.shape) + (trans_b ? " (transB 1)" : " (transB 0)") +
                                " for A " + dims_string(a.shape));
  std::map<std::string, std::string> p{{"outputs", std::to_string(outputs)}};
  std::optional<GivenValues> bias;
  if (c.has_input(2)) {
    bias = channel_vector(c.constant(2), {a.shape[0], outputs});
    if (!bias || (c.constant(2).shape.size() == 2 && c.constant(2).shape[0] != 1))
      c.refuse("input 2 (C)", "is " + dims_string(c.constant(2).shape) + "; ablate's bias is a vector over the " +
                                  std::to_string(outputs) + " outputs ([O], [1, O] or one element)");
  } else {
    p["bias"] = "false";
  }
  const std::string layer = c.add_layer("inner_product", p, {a.layer});
  c.give(layer + ".weight", weight);
  if (bias) c.give(layer + ".bias", *bias);
  c.set_output(0, layer_output(c, layer));
}

ABLATE_ONNX_OP("Gemm", gemm);

}  // namespace
}  // namespace ablate::models::onnx_import::ops
