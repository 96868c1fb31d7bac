// relu: Caffe's ReLU, nn.ReLU, tf.nn.relu: y = max(x, 0), any shape. It runs in place as
// Caffe's prototxts write it (top = bottom); its backward reads only where y > 0, which an
// in-place layer above keeps wherever its gradient is non-zero.
#include "models/layers/layer_kit.h"

namespace ablate::models::layers {
namespace {

LayerType describe() {
  LayerType t = activation_type("relu", kernels::Activation::relu);
  t.in_place = true;
  return t;
}

ABLATE_LAYER_TYPE(describe);

}  // namespace
}  // namespace ablate::models::layers
