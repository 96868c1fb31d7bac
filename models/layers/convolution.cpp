// convolution: Caffe's Convolution, TF's conv2d (SAME/VALID), Torch's SpatialConvolutionMM,
// Theano's conv2d.
//   [N,C,H,W] -> [N,K,OH,OW]     weight [K,C,KH,KW], bias [K]
//   geometry: models::conv_geometry (explicit pad, valid, TF SAME)
//   fans: the weight's own, except that a convolution whose first reader pools has
//         fan_out = K KH KW / pool area (Theano's LeNetConvPoolLayer; only glorot reads it)
//   flops: 2 N K C KH KW OH OW; scratch: the im2col buffer of the batch [N, C KH KW, OH OW]
#include "kernels/tensor.h"
#include "models/layer_params.h"
#include "models/layers/layer_kit.h"

namespace ablate::models::layers {
namespace {

LayerType describe() {
  LayerType t;
  t.name = "convolution";
  t.keys = joined({{{"outputs", kind(ValueKind::positive_integer)},
                    {"kernel", kind(ValueKind::positive_integer)},
                    {"kernel_h", kind(ValueKind::positive_integer)},
                    {"kernel_w", kind(ValueKind::positive_integer)},
                    {"stride", kind(ValueKind::positive_integer)},
                    {"pad", kind(ValueKind::non_negative_integer)},
                    {"padding", choice({"explicit", "same", "valid"})},
                    {"bias", kind(ValueKind::boolean)}},
                   weight_keys(),
                   bias_keys()});
  t.check_keys = [](const LayerSpec& layer) {
    require_key(layer, "outputs");
    if (!layer.has("kernel") && !(layer.has("kernel_h") && layer.has("kernel_w")))
      layer.fail("needs key 'kernel' (or both 'kernel_h' and 'kernel_w')");
    if (layer.has("pad") && layer.get_string("padding", "explicit") != "explicit")
      layer.fail("'pad' applies only to padding=explicit, not padding=" + layer.get_string("padding", ""));
    check_bias_keys(layer);
  };
  t.shape = [](const LayerSpec& layer, const ModelSpec&, LayerShapes& s) {
    const Dims& in = s.input;
    require_rank(layer, in, 4, "[N, C, H, W]");
    const ConvGeometry g = conv_geometry(layer, static_cast<int>(in[2]), static_cast<int>(in[3]));
    s.output = {in[0], g.outputs, g.out_h, g.out_w};
    s.add_param("weight", {g.outputs, in[1], g.kernel_h, g.kernel_w});
    if (g.bias) s.add_param("bias", {g.outputs});
  };
  t.fans = [](const FanArgs& a) {
    const Dims& w = a.shapes.params[0];
    const double pooled = a.reader_pooled_area > 0 ? static_cast<double>(w[0] * w[2] * w[3]) / a.reader_pooled_area : 0;
    return weight_bias_fans(a.shapes, pooled);
  };
  t.flops = [](const LayerSpec&, const LayerShapes& s) { return weight_flops(s); };
  t.workspace_elements = [](const LayerSpec&, const LayerShapes& s) {
    const Dims& w = s.params[0];
    return static_cast<double>(s.output[0] * w[1] * w[2] * w[3] * s.output[2] * s.output[3]);
  };
  return t;
}

ABLATE_LAYER_TYPE(describe);

}  // namespace
}  // namespace ablate::models::layers
