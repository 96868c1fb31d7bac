// batch_norm: batch normalisation per channel (Ioffe & Szegedy), PyTorch's nn.BatchNorm2d /
// BatchNorm1d and Torch7's nn.SpatialBatchNormalization, or Caffe's BatchNorm layer:
//   [N,C,H,W] or [N,C] -> same; statistics per channel over N (and H, W)
//   training: the batch's mean and biased variance; test: the running statistics
//   y = weight[c] (x - mean[c]) / sqrt(var[c] + eps) + bias[c]   (affine: weight [C], bias [C])
// The running statistics are state (LayerShapes::state), not parameters: the convention of
// momentum_style (models::batch_norm_state, graph/batch_norm_statistics.h):
//   torch  running_mean, running_var: running = (1 - momentum) running + momentum batch, the
//          variance unbiased (M/(M-1), M = N*H*W); momentum 0.1; affine by default
//   caffe  mean_sum, var_sum, scale_factor: scale_factor = f scale_factor + 1, sums = f sums +
//          batch (the variance unbiased), test statistics = sums / scale_factor, with f =
//          moving_average_fraction 0.999; no affine part by default (Caffe's Scale layer)
// Its backward reads its input x, so it writes an output of its own (not in place).
#include "models/layer_params.h"
#include "models/layers/layer_kit.h"

namespace ablate::models::layers {
namespace {

LayerType describe() {
  LayerType t;
  t.name = "batch_norm";
  t.keys = joined({{{"eps", kind(ValueKind::positive_real)},
                    {"affine", kind(ValueKind::boolean)},
                    {"momentum_style", choice({"torch", "caffe"})},
                    {"momentum", kind(ValueKind::keep_probability)},
                    {"moving_average_fraction", kind(ValueKind::keep_probability)}},
                   weight_keys(),
                   bias_keys()});
  t.check_keys = [](const LayerSpec& layer) {
    const BatchNormParams p = batch_norm_params(layer);
    const bool torch = p.style == MomentumStyle::torch;
    if (layer.has(torch ? "moving_average_fraction" : "momentum"))
      layer.fail(std::string("'") + (torch ? "moving_average_fraction" : "momentum") + "' given with momentum_style=" +
                 (torch ? "torch; it belongs to momentum_style=caffe" : "caffe; it belongs to momentum_style=torch"));
    if (!p.affine)
      for (const KeyRule& k : joined({weight_keys(), bias_keys()}))
        if (layer.has(k.key)) layer.fail("'" + k.key + "' given but affine=false (no weight or bias to learn)");
  };
  t.shape = [](const LayerSpec& layer, const ModelSpec&, LayerShapes& s) {
    if (s.input.size() != 2 && s.input.size() != 4) layer.fail("expects input [N, C] or [N, C, H, W]");
    const BatchNormParams p = batch_norm_params(layer);
    const std::int64_t channels = s.input[1];
    s.output = s.input;
    if (p.affine) {
      s.add_param("weight", {channels});
      s.add_param("bias", {channels});
    }
    s.state = batch_norm_state(p, channels);
  };
  t.default_inits = {{"weight", "constant:1"}};
  return t;
}

ABLATE_LAYER_TYPE(describe);

}  // namespace
}  // namespace ablate::models::layers
