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
//                                    A `linear` (MatMul on tokens [N, T, O]) takes a bias along
//                                    the last axis: [O], [1, 1, O].
//   tokens [N, T, D] and a constant of one sample's shape [T, D] or [1, T, D]
//                                 -> an ablate `pos_embed` layer, <layer>.weight = the constant
//                                    [T, D] (a learned position embedding, ViT's)
// Refused: broadcasting between two activations of different shapes, a constant Add that is
// no such bias, an Add of two constants.
#include "models/onnx/ops/op_kit.h"

namespace ablate::models::onnx_import::ops {
namespace {

// A constant broadcast over the last axis only, as a [K] vector (K = out.back()): shapes [K],
// [1, K], [1, 1, K], ...; nullopt for any other.
std::optional<GivenValues> last_axis_vector(const GivenValues& c, const Dims& out) {
  if (out.empty() || c.shape.empty() || c.shape.size() > out.size() || c.shape.back() != out.back()) return std::nullopt;
  for (std::size_t d = 0; d + 1 < c.shape.size(); ++d)
    if (c.shape[d] != 1) return std::nullopt;
  GivenValues v = c;
  v.shape = {out.back()};
  return v;
}

// A constant of one sample's shape [T, D] (or [1, T, D]) added to tokens [N, T, D]: a position
// embedding, as [T, D]; nullopt for any other shape.
std::optional<GivenValues> per_sample(const GivenValues& c, const Dims& out) {
  if (out.size() != 3) return std::nullopt;
  const bool fits = (c.shape.size() == 2 && c.shape[0] == out[1] && c.shape[1] == out[2]) ||
                    (c.shape.size() == 3 && c.shape[0] == 1 && c.shape[1] == out[1] && c.shape[2] == out[2]);
  if (!fits) return std::nullopt;
  GivenValues v = c;
  v.shape = {out[1], out[2]};
  return v;
}

void fold_bias(NodeContext& c, int activation_input, const GivenValues& constant) {
  const OnnxValue& x = c.input(activation_input);
  const std::string what = "input " + std::to_string(1 - activation_input) + " (a constant " + dims_string(constant.shape) + ")";
  if (x.layer == kModelInput) c.refuse(what, "is added to the model input; ablate adds a constant only as a layer's bias");
  const bool tokens = x.shape.size() == 3 && c.ablate_shape(x.layer) == x.shape;
  LayerSpec& layer = c.layer(x.layer);
  const bool folds_last_axis = layer.type == "linear";
  if (layer.type != "convolution" && layer.type != "inner_product" && !folds_last_axis) {
    if (tokens) {
      if (auto table = per_sample(constant, x.shape)) {  // a position embedding
        const std::string added = c.add_layer("pos_embed", {}, {x.layer});
        c.give(added + ".weight", *table);
        c.set_output(0, layer_output(c, added));
        return;
      }
      c.refuse(what, "is added to tokens " + dims_string(x.shape) + " of a " + layer.type +
                         " layer; ablate adds a constant to tokens as a position embedding [T, D] or [1, T, D], or as "
                         "the bias of a linear layer");
    }
    c.refuse(what, "is added to the output of a " + layer.type +
                       " layer; ablate folds a constant Add only into the bias of a convolution, inner_product or linear");
  }
  if (c.readers(c.node().input(activation_input)) != 1)
    c.refuse(what, "is added to a value other nodes read too; it cannot fold into the bias of layer '" + layer.name + "'");
  const std::optional<GivenValues> bias = folds_last_axis ? last_axis_vector(constant, x.shape) : channel_vector(constant, x.shape);
  if (!bias)
    c.refuse(what, std::string("does not broadcast along ") + (folds_last_axis ? "the last axis" : "axis 1") + " of " +
                       dims_string(x.shape) + " only, as a bias of layer '" + layer.name + "' would");
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
