// pooling: max or average pooling with Caffe's ceil rounding, TF SAME or floor ("valid")
// (models::pool_params, the kernels' make_pool2d_params).
//   [N,C,H,W] -> [N,C,OH,OW]
// Its backward receives y (a library may locate the maximum by it), so the layer above it
// does not run in place. Its window area (kernel^2) is what Theano's conv fan_out divides by when it reads a
// convolution.
#include "models/layer_params.h"
#include "models/layers/layer_kit.h"

namespace ablate::models::layers {
namespace {

LayerType describe() {
  LayerType t;
  t.name = "pooling";
  t.keys = {{"mode", choice({"max", "avg"})},
            {"kernel", kind(ValueKind::positive_integer)},
            {"stride", kind(ValueKind::positive_integer)},
            {"pad", kind(ValueKind::non_negative_integer)},
            {"padding", choice({"caffe_ceil", "tf_same", "valid"})}};
  t.check_keys = [](const LayerSpec& layer) {
    require_key(layer, "kernel");
    if (layer.has("pad") && layer.get_string("padding", "valid") == "tf_same")
      layer.fail("'pad' does not apply to padding=tf_same (TF SAME computes its own padding)");
  };
  t.shape = [](const LayerSpec& layer, const ModelSpec&, LayerShapes& s) {
    const Dims& in = s.input;
    require_rank(layer, in, 4, "[N, C, H, W]");
    const kernels::Pool2dParams p = pool_params(layer, static_cast<int>(in[2]), static_cast<int>(in[3]));
    s.output = {in[0], in[1], p.out_h, p.out_w};
  };
  t.backward_reads_output = true;
  t.pooled_area = [](const LayerSpec& layer) {
    const double kernel = layer.require_int("kernel");
    return kernel * kernel;
  };
  return t;
}

ABLATE_LAYER_TYPE(describe);

}  // namespace
}  // namespace ablate::models::layers
