// sigmoid: Caffe's Sigmoid, nn.Sigmoid, T.nnet.sigmoid: y = 1 / (1 + exp(-x)), any shape.
// Its backward reads y (1 - y) at every element, so it writes an output of its own and the
// layer above it does not run in place.
#include "models/layers/layer_kit.h"

namespace ablate::models::layers {
namespace {

LayerType describe() {
  LayerType t = activation_type("sigmoid", kernels::Activation::sigmoid);
  t.backward_reads_output = true;
  return t;
}

ABLATE_LAYER_TYPE(describe);

}  // namespace
}  // namespace ablate::models::layers
