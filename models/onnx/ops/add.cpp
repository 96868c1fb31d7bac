// ONNX Add (opsets 7, 13, 14): C = A + B elementwise (numpy broadcasting). Two cases map:
//   two activations of one shape  -> an ablate `add` layer input=a,b (Caffe's Eltwise SUM; a
//                                    residual connection)
//   an activation and a constant  -> folded into the bias of the convolution or inner_product
//                                    that computes the activation, when nothing else reads
//                                    that activation and the constant broadcasts along axis 1
//                                    only (a bias [K] per channel or output: PyTorch's Linear
//                                    exported as MatMul + Add); the layer gets bias=true and
//                                    <layer>.bias = the constant (added to a bias it had).
//                                    The Add adds no layer: its output is the layer's output.
// Refused: broadcasting between two activations of different shapes, a constant Add that is
// no such bias, an Add of two constants.
#include "models/onnx/ops/op_kit.h"

namespace ablate::models::onnx_import::ops {
namespace {

void fold_bias(NodeContext& c, int activation_input, const GivenValues& constant) {
  const OnnxValue& x = c.input(activation_input);
  const std::string what = "input " + std::to_string(1 - activation_input) + " (a constant " + dims_string(constant.shape) + ")";
  if (x.layer == kModelInput) c.refuse(what, "is added to the model input; ablate adds a constant only as a layer's bias");
  LayerSpec& layer = c.layer(x.layer);
  if (layer.type != "convolution" && layer.type != "inner_product")
    c.refuse(what, "is added to the output of a " + layer.type +
                       " layer; ablate folds a constant Add only into the bias of a convolution or inner_product");
  if (c.readers(c.node().input(activation_input)) != 1)
    c.refuse(what, "is added to a value other nodes read too; it cannot fold into the bias of layer '" + layer.name + "'");
  const std::optional<GivenValues> bias = channel_vector(constant, x.shape);
  if (!bias)
    c.refuse(what, "does not broadcast along axis 1 of " + dims_string(x.shape) + " only, as a bias of layer '" +
                       layer.name + "' would");
  if (GivenValues* existing = c.given(layer.name + ".bias")) {
    for (std::size_t k = 0; k < existing->values.size(); ++k) existing->values[k] += bias->values[k];
  } else {
    layer.params.erase("bias");  // bias=false -> the default, true
    c.give(layer.name + ".bias", *bias);
  }
  c.set_output(0, x);
}

void add(NodeContext& c) {
  c.refuse_unknown_attributes({});
  const OnnxValue& a = c.input(0);
  const OnnxValue& b = c.input(1);
  if (a.is_constant() && b.is_constant()) c.refuse("input 0 and 1", "are both constants (no constant folding)");
  if (a.is_constant()) return fold_bias(c, 1, *a.constant);
  if (b.is_constant()) return fold_bias(c, 0, *b.constant);
  if (a.shape != b.shape)
    c.refuse("input 1", "is " + dims_string(b.shape) + " and input 0 " + dims_string(a.shape) +
                            "; ablate's add reads inputs of one shape (no broadcasting)");
  const std::string layer = c.add_layer("add", {}, {a.layer, b.layer});
  OnnxValue y;
  y.layer = layer;
  y.shape = a.shape;
  c.set_output(0, y);
}

ABLATE_ONNX_OP("Add", add);

}  // namespace
}  // namespace ablate::models::onnx_import::ops
