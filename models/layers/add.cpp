// add: the element-wise sum of two or more inputs of one shape, y = x0 + x1 + ...: Caffe's
// Eltwise (operation SUM, coefficients 1), Torch7's CAddTable, tf.add / tf.add_n, ONNX Add.
// A residual network's shortcut joins its block here.
//   [N, ...] x k -> [N, ...]
// Its backward hands dy to every input unchanged (each input's gradient is dy).
#include "kernels/tensor.h"
#include "models/layers/layer_kit.h"

namespace ablate::models::layers {
namespace {

LayerType describe() {
  LayerType t;
  t.name = "add";
  t.min_inputs = 2;
  t.max_inputs = 0;
  t.shape = [](const LayerSpec& layer, const ModelSpec&, LayerShapes& s) {
    for (std::size_t k = 1; k < s.inputs.size(); ++k)
      if (s.inputs[k] != s.inputs[0])
        layer.fail("adds inputs of different shapes: '" + layer.inputs.at(0) + "' " + kernels::shape_string(s.inputs[0]) +
                   " and '" + layer.inputs.at(k) + "' " + kernels::shape_string(s.inputs[k]) +
                   " (add sums inputs of one shape)");
    s.output = s.input;
  };
  return t;
}

ABLATE_LAYER_TYPE(describe);

}  // namespace
}  // namespace ablate::models::layers
