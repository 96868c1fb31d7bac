// ONNX Gelu (opset 20; at opsets up to 17 made by the GELU pattern, patterns/gelu_erf_pattern.cpp,
// from torch.onnx's Div, Erf, Add, Mul, Mul): y = x · Φ(x) = ½x(1 + erf(x/√2)), elementwise, any
// shape; approximate "tanh": ½x(1 + tanh(√(2/π)(x + 0.044715x³))). Maps to an ablate `gelu`
// layer (PyTorch's nn.GELU), `approximate=tanh` for the tanh form.
// Refused: another value of approximate.
#include "models/onnx/ops/op_kit.h"

namespace ablate::models::onnx_import::ops {
namespace {

void gelu(NodeContext& c) {
  c.refuse_unknown_attributes({"approximate"});
  const OnnxValue& x = c.activation(0);
  const std::string approximate = c.get_string("approximate", "none");
  if (approximate != "none" && approximate != "tanh") c.refuse("approximate", "= '" + approximate + "' is not 'none' or 'tanh'");
  std::map<std::string, std::string> params;
  if (approximate == "tanh") params["approximate"] = "tanh";
  OnnxValue y;
  y.layer = c.add_layer("gelu", params, {x.layer});
  y.shape = x.shape;
  c.set_output(0, y);
}

ABLATE_ONNX_OP("Gelu", gelu);

}  // namespace
}  // namespace ablate::models::onnx_import::ops
