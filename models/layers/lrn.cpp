// lrn: local response normalization across channels, Caffe's LRN (ACROSS_CHANNELS: alpha is
// divided by size), nn.SpatialCrossMapLRN, tf.nn.lrn (models::lrn_params).
//   [N,C,H,W] -> same; its backward reads y, so the layer above it does not run in place
#include "models/layers/layer_kit.h"

namespace ablate::models::layers {
namespace {

LayerType describe() {
  LayerType t;
  t.name = "lrn";
  t.keys = {{"size", kind(ValueKind::odd_positive_integer)},
            {"alpha", kind(ValueKind::non_negative_real)},
            {"beta", kind(ValueKind::non_negative_real)},
            {"k", kind(ValueKind::positive_real)}};
  t.shape = same_shape_of_rank(4, "[N, C, H, W]");
  t.backward_reads_output = true;
  return t;
}

ABLATE_LAYER_TYPE(describe);

}  // namespace
}  // namespace ablate::models::layers
