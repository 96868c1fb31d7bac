// tanh: Caffe's TanH, nn.Tanh, T.tanh: y = tanh(x), any shape. Its backward reads
// 1 - y^2 at every element, so it writes an output of its own and the layer above it does
// not run in place.
#include "models/layers/layer_kit.h"

namespace ablate::models::layers {
namespace {

LayerType describe() {
  LayerType t = activation_type("tanh", kernels::Activation::tanh);
  t.backward_reads_output = true;
  return t;
}

ABLATE_LAYER_TYPE(describe);

}  // namespace
}  // namespace ablate::models::layers
