// layer_norm: layer normalisation over the last axis (Ba et al. 2016), PyTorch's
// nn.LayerNorm(D), a transformer block's norm:
//   [N, ..., D] -> same;  per row: y = weight[d] (x - mean) / sqrt(var + eps) + bias[d]
// with the row's mean and biased variance (training and testing alike: no running statistics).
// weight [D] starts at 1, bias [D] at 0; eps default 1e-5. Its backward reads its input x, so
// it writes an output of its own (not in place).
#include "kernels/tensor.h"
#include "models/layers/layer_kit.h"

namespace ablate::models::layers {
namespace {

LayerType describe() {
  LayerType t;
  t.name = "layer_norm";
  t.keys = joined({{{"eps", kind(ValueKind::positive_real)}}, weight_keys(), bias_keys()});
  t.shape = [](const LayerSpec& layer, const ModelSpec&, LayerShapes& s) {
    if (s.input.size() < 2) layer.fail("expects input [N, ..., D], got " + kernels::shape_string(s.input));
    s.output = s.input;
    s.add_param("weight", {s.input.back()});
    s.add_param("bias", {s.input.back()});
  };
  t.default_inits = {{"weight", "constant:1"}};
  return t;
}

ABLATE_LAYER_TYPE(describe);

}  // namespace
}  // namespace ablate::models::layers
