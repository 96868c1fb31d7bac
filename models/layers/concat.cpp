// concat: two or more inputs joined along the channel axis (axis 1): Caffe's Concat (axis 1),
// Torch7's JoinTable(2) / DepthConcat without padding, tf.concat(axis=3 in NHWC), ONNX Concat
// axis 1. Every other dimension must agree.
//   [N, C0, ...], [N, C1, ...], ... -> [N, C0 + C1 + ..., ...]
// Its backward hands each input its own channel slice of dy.
#include "kernels/tensor.h"
#include "models/layers/layer_kit.h"

namespace ablate::models::layers {
namespace {

LayerType describe() {
  LayerType t;
  t.name = "concat";
  t.min_inputs = 2;
  t.max_inputs = 0;
  t.shape = [](const LayerSpec& layer, const ModelSpec&, LayerShapes& s) {
    Dims out = s.inputs[0];
    if (out.size() < 2) layer.fail("expects inputs [N, C, ...] (concat joins along the channel axis 1)");
    for (std::size_t k = 1; k < s.inputs.size(); ++k) {
      const Dims& in = s.inputs[k];
      bool fits = in.size() == out.size();
      for (std::size_t d = 0; fits && d < in.size(); ++d) fits = d == 1 || in[d] == out[d];
      if (!fits)
        layer.fail("joins inputs whose shapes differ beyond the channel axis: '" + layer.inputs.at(0) + "' " +
                   kernels::shape_string(s.inputs[0]) + " and '" + layer.inputs.at(k) + "' " +
                   kernels::shape_string(in) + " (concat joins along axis 1; every other dimension must agree)");
      out[1] += in[1];
    }
    s.output = out;
  };
  return t;
}

ABLATE_LAYER_TYPE(describe);

}  // namespace
}  // namespace ablate::models::layers
