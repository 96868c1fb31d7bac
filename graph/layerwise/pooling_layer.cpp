// Pooling forward and backward through the Backend's pool2d ops (see pooling_layer.h).
#include "graph/layerwise/pooling_layer.h"
#include "graph/layerwise/layer_factory.h"

#include "models/layer_params.h"

namespace ablate::graph::layerwise {

void PoolingLayer::reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) {
  require_dims(*bottom[0], 4, "[N, C, H, W]");
  const kernels::Shape& in = bottom[0]->shape();
  params_ = models::pool_params(spec_, static_cast<int>(in[2]), static_cast<int>(in[3]));
  top[0]->reshape({in[0], in[1], params_.out_h, params_.out_w});
}

void PoolingLayer::forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext&) {
  backend_.pool2d_forward(bottom[0]->data(), top[0]->data(), workspace_, params_);
}

void PoolingLayer::backward(const std::vector<Blob*>& top, bool propagate_down, const std::vector<Blob*>& bottom) {
  if (!propagate_down) return;
  backend_.pool2d_backward(bottom[0]->data(), top[0]->data(), top[0]->diff(), workspace_, bottom[0]->diff(), params_);
}

ABLATE_LAYERWISE_LAYER(pooling, PoolingLayer);

}  // namespace ablate::graph::layerwise
