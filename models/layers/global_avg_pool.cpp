// global_avg_pool: the mean of every channel over its whole plane: Caffe's Pooling with
// global_pooling: true (AVE), Torch7's SpatialAveragePooling over the whole input,
// nn.AdaptiveAvgPool2d(1), tf.reduce_mean over H and W, ONNX GlobalAveragePool. A residual
// network ends with it before its classifier. Every strategy runs it as an average pooling
// whose window is the whole plane (models::global_pool_params).
//   [N, C, H, W] -> [N, C, 1, 1]
#include "models/layers/layer_kit.h"

namespace ablate::models::layers {
namespace {

LayerType describe() {
  LayerType t;
  t.name = "global_avg_pool";
  t.shape = [](const LayerSpec& layer, const ModelSpec&, LayerShapes& s) {
    require_rank(layer, s.input, 4, "[N, C, H, W]");
    s.output = {s.input[0], s.input[1], 1, 1};
  };
  t.flops = [](const LayerSpec&, const LayerShapes& s) {
    return static_cast<double>(s.input[0] * s.input[1] * s.input[2] * s.input[3]);
  };
  return t;
}

ABLATE_LAYER_TYPE(describe);

}  // namespace
}  // namespace ablate::models::layers
