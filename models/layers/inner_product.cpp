// inner_product: Caffe's InnerProduct, Torch's nn.View(-1) + nn.Linear, tf.matmul.
//   [N,...] -> [N,O]     weight [O,I], bias [O]; I = the input's non-batch dimensions
//                        flattened (C*H*W)
//   flops: 2 N I O
#include "kernels/tensor.h"
#include "models/layer_params.h"
#include "models/layers/layer_kit.h"

namespace ablate::models::layers {
namespace {

LayerType describe() {
  LayerType t;
  t.name = "inner_product";
  t.keys = joined({{{"outputs", kind(ValueKind::positive_integer)}, {"bias", kind(ValueKind::boolean)}},
                   weight_keys(),
                   bias_keys()});
  t.check_keys = [](const LayerSpec& layer) {
    require_key(layer, "outputs");
    check_bias_keys(layer);
  };
  t.shape = [](const LayerSpec& layer, const ModelSpec&, LayerShapes& s) {
    const Dims& in = s.input;
    if (in.size() < 2) layer.fail("expects input [N, ...]");
    const std::int64_t features = kernels::shape_numel(in) / in[0];
    const int outputs = layer_outputs(layer);
    s.output = {in[0], outputs};
    s.add_param("weight", {outputs, features});
    if (layer_has_bias(layer)) s.add_param("bias", {outputs});
  };
  t.fans = [](const FanArgs& a) { return weight_bias_fans(a.shapes); };
  t.flops = [](const LayerSpec&, const LayerShapes& s) { return weight_flops(s); };
  return t;
}

ABLATE_LAYER_TYPE(describe);

}  // namespace
}  // namespace ablate::models::layers
