// bias: a learnable bias per channel on its own, Theano's conv -> pool -> + b order (and
// Torch's nn.Add).
//   [N,C,...] -> same     bias [C] (its own fans); it may run in place
#include "models/layers/layer_kit.h"

namespace ablate::models::layers {
namespace {

LayerType describe() {
  LayerType t;
  t.name = "bias";
  t.keys = bias_keys();
  t.shape = [](const LayerSpec& layer, const ModelSpec&, LayerShapes& s) {
    if (s.input.size() < 2) layer.fail("expects input [N, C, ...]");
    s.output = s.input;
    s.add_param("bias", {s.input[1]});
  };
  t.in_place = true;
  return t;
}

ABLATE_LAYER_TYPE(describe);

}  // namespace
}  // namespace ablate::models::layers
