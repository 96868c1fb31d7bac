// Bias forward and backward through Backend::bias_add and bias_backward (see bias_layer.h).
#include "graph/layerwise/bias_layer.h"
#include "graph/layerwise/layer_factory.h"

namespace ablate::graph::layerwise {

void BiasLayer::layer_setup(const std::vector<Blob*>& bottom) {
  if (bottom[0]->shape().size() < 2) fail("expects an input [N, C, ...], got " + kernels::shape_string(bottom[0]->shape()));
  add_blob("bias", {bottom[0]->shape()[1]});
}

void BiasLayer::reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) {
  const kernels::Shape& in = bottom[0]->shape();
  if (in.size() < 2 || in[1] != blobs()[0]->count())
    fail("input " + kernels::shape_string(in) + " does not have the " + std::to_string(blobs()[0]->count()) +
         " channels of its bias");
  if (top[0] != bottom[0]) top[0]->reshape(in);
}

void BiasLayer::forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext&) {
  if (top[0] != bottom[0]) backend_.copy(bottom[0]->data(), top[0]->data());
  backend_.bias_add(top[0]->data(), blobs()[0]->data());
}

void BiasLayer::run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                             const std::vector<Blob*>& bottom) {
  backend_.bias_backward(top[0]->diff(), blobs()[0]->diff());
  if (propagate_down[0] && top[0] != bottom[0]) backend_.copy(top[0]->diff(), bottom[0]->diff());
}

ABLATE_LAYERWISE_LAYER(bias, BiasLayer);

}  // namespace ablate::graph::layerwise
