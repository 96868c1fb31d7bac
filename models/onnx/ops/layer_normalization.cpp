// ONNX LayerNormalization (opset 17): over the axes from `axis` on, per row
// y = Scale · (x − mean) / √(var + epsilon) + B (biased variance), stash_type 1 (float). With
// axis the last axis it is PyTorch's nn.LayerNorm(D) as torch.onnx writes it at opset 17: an
// ablate `layer_norm eps=epsilon` layer, given <layer>.weight = Scale [D] and <layer>.bias = B
// (zeros without B). epsilon is a float attribute: PyTorch's 1e-5 arrives as 1e-5 rounded to
// float32 (9.99999974737875e-06), which is what ablate uses.
// Refused: an axis other than the last, a Scale or B computed by the graph or not [D], the
// Mean and InvStdDev outputs in use, stash_type other than 1.
#include "models/onnx/ops/op_kit.h"

namespace ablate::models::onnx_import::ops {
namespace {

GivenValues feature_vector(NodeContext& c, int k, const char* what, std::int64_t width) {
  GivenValues v = c.constant(k);
  if (static_cast<std::int64_t>(v.values.size()) != width || v.shape.empty() || v.shape.back() != width)
    c.refuse("input " + std::to_string(k) + " (" + what + ")",
             "is " + dims_string(v.shape) + "; expected [" + std::to_string(width) + "] (the last axis)");
  v.shape = {width};
  return v;
}

void layer_normalization(NodeContext& c) {
  c.refuse_unknown_attributes({"axis", "epsilon", "stash_type"});
  c.only_first_output();
  const OnnxValue& x = c.activation(0);
  if (x.shape.size() < 2) c.refuse("input 0 (X)", "is " + dims_string(x.shape) + "; expected [N, ..., D]");
  if (normalized_axis(c, "axis", c.get_int("axis", -1), x.shape.size()) != static_cast<int>(x.shape.size()) - 1)
    c.refuse("axis", "= " + std::to_string(c.get_int("axis", -1)) + " is not supported (the last axis only, as nn.LayerNorm(D))");
  if (c.get_int("stash_type", 1) != 1) c.refuse("stash_type", "= " + std::to_string(c.get_int("stash_type", 1)) + " is not supported (1)");
  if (x.layer == kModelInput || c.ablate_shape(x.layer).back() != x.shape.back())
    c.refuse("input 0 (X)", "is " + dims_string(x.shape) + " in ONNX but " +
                                dims_string(x.layer == kModelInput ? Dims{} : c.ablate_shape(x.layer)) +
                                " to ablate; layer_norm normalises the last axis of a layer's output");
  const std::int64_t width = x.shape.back();
  GivenValues scale = feature_vector(c, 1, "Scale", width);
  GivenValues bias = c.has_input(2) ? feature_vector(c, 2, "B", width)
                                    : GivenValues{{width}, std::vector<double>(static_cast<std::size_t>(width), 0.0)};
  const std::string layer = c.add_layer("layer_norm", {{"eps", number(c.get_float("epsilon", 1e-5))}}, {x.layer});
  c.give(layer + ".weight", std::move(scale));
  c.give(layer + ".bias", std::move(bias));
  c.set_output(0, layer_output(c, layer));
}

ABLATE_ONNX_OP("LayerNormalization", layer_normalization);

}  // namespace
}  // namespace ablate::models::onnx_import::ops
