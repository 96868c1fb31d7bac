// conv_map: Torch's SpatialConvolutionMap over nn.tables.random(C, outputs, fan_in): each
// output plane sees fan_in input planes drawn with table_seed (models::connection_table).
//   [N,C,H,W] -> [N,K,OH,OW]     weight [K*fan_in,KH,KW], bias [K]   (explicit padding)
//   fans: Torch's reset(): stdv = 1/sqrt(KH KW fan_in) for weight and bias;
//         fan_out = K KH KW
//   flops: 2 N T KH KW OH OW (T = K fan_in connections)
#include "kernels/tensor.h"
#include "models/layer_params.h"
#include "models/layers/layer_kit.h"

namespace ablate::models::layers {
namespace {

LayerType describe() {
  LayerType t;
  t.name = "conv_map";
  t.keys = joined({{{"outputs", kind(ValueKind::positive_integer)},
                    {"kernel", kind(ValueKind::positive_integer)},
                    {"stride", kind(ValueKind::positive_integer)},
                    {"pad", kind(ValueKind::non_negative_integer)},
                    {"fan_in", kind(ValueKind::positive_integer)},
                    {"table_seed", kind(ValueKind::non_negative_integer)},
                    {"bias", kind(ValueKind::boolean)}},
                   weight_keys(),
                   bias_keys()});
  t.check_keys = [](const LayerSpec& layer) {
    for (const char* key : {"outputs", "kernel", "fan_in"}) require_key(layer, key);
    check_bias_keys(layer);
  };
  t.shape = [](const LayerSpec& layer, const ModelSpec&, LayerShapes& s) {
    const Dims& in = s.input;
    require_rank(layer, in, 4, "[N, C, H, W]");
    const ConvGeometry g = conv_geometry(layer, static_cast<int>(in[2]), static_cast<int>(in[3]));
    const std::int64_t fan_in = layer.require_int("fan_in");
    if (fan_in > in[1])
      layer.fail("fan_in " + std::to_string(fan_in) + " is more than the " + std::to_string(in[1]) + " input planes");
    s.output = {in[0], g.outputs, g.out_h, g.out_w};
    s.add_param("weight", {g.outputs * fan_in, g.kernel_h, g.kernel_w});
    if (g.bias) s.add_param("bias", {g.outputs});
  };
  t.fans = [](const FanArgs& a) {
    const Dims& w = a.shapes.params[0];
    const double kernel_area = static_cast<double>(w[1] * w[2]);
    const double fan_in = kernel_area * a.layer.require_int("fan_in");
    const double fan_out = static_cast<double>(layer_outputs(a.layer)) * kernel_area;
    return weight_bias_fans(a.shapes, fan_out, fan_in);
  };
  t.flops = [](const LayerSpec&, const LayerShapes& s) {
    return 2 * static_cast<double>(s.output[0] * s.output[2] * s.output[3]) *
           static_cast<double>(kernels::shape_numel(s.params[0]));
  };
  return t;
}

ABLATE_LAYER_TYPE(describe);

}  // namespace
}  // namespace ablate::models::layers
