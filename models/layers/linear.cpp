// linear: a fully connected map of the last axis, PyTorch's nn.Linear (and tf.layers.dense) on
// a tensor of any rank, e.g. every token of [N, T, D] at once:
//   [N, ..., I] -> [N, ..., O]     weight [O, I], bias [O]; one GEMM over the N * ... rows
//   flops: 2 (rows) I O
// On [N, I] it is inner_product; inner_product flattens [N, C, H, W] instead, as Caffe's
// InnerProduct does.
#include "kernels/tensor.h"
#include "models/layer_params.h"
#include "models/layers/layer_kit.h"

namespace ablate::models::layers {
namespace {

LayerType describe() {
  LayerType t;
  t.name = "linear";
  t.keys = joined({{{"outputs", kind(ValueKind::positive_integer)}, {"bias", kind(ValueKind::boolean)}},
                   weight_keys(),
                   bias_keys()});
  t.check_keys = [](const LayerSpec& layer) {
    require_key(layer, "outputs");
    check_bias_keys(layer);
  };
  t.shape = [](const LayerSpec& layer, const ModelSpec&, LayerShapes& s) {
    if (s.input.size() < 2) layer.fail("expects input [N, ..., I], got " + kernels::shape_string(s.input));
    const int outputs = layer_outputs(layer);
    s.output = s.input;
    s.output.back() = outputs;
    s.add_param("weight", {outputs, s.input.back()});
    if (layer_has_bias(layer)) s.add_param("bias", {outputs});
  };
  t.fans = [](const FanArgs& a) { return weight_bias_fans(a.shapes); };
  t.flops = [](const LayerSpec&, const LayerShapes& s) { return weight_flops(s); };
  return t;
}

ABLATE_LAYER_TYPE(describe);

}  // namespace
}  // namespace ablate::models::layers
