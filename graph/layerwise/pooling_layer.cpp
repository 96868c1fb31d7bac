// Pooling forward and backward through the Backend's pool2d ops (see pooling_layer.h).
#include "graph/layerwise/pooling_layer.h"
#include "graph/layerwise/layer_factory.h"

#include "models/layer_params.h"

namespace ablate::graph::layerwise {

PoolingLayer::PoolingLayer(const models::LayerSpec& spec, kernels::Backend& backend, kernels::DType dtype, bool global)
    : Layer(spec, backend, dtype), global_(global) {}

void PoolingLayer::reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) {
  require_dims(*bottom[0], 4, "[N, C, H, W]");
  const kernels::Shape& in = bottom[0]->shape();
  const int h = static_cast<int>(in[2]), w = static_cast<int>(in[3]);
  params_ = global_ ? models::global_pool_params(h, w) : models::pool_params(spec_, h, w);
  top[0]->reshape({in[0], in[1], params_.out_h, params_.out_w});
}

void PoolingLayer::forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext&) {
  backend_.pool2d_forward(bottom[0]->data(), top[0]->data(), workspace_, params_);
}

void PoolingLayer::run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                                const std::vector<Blob*>& bottom) {
  if (!propagate_down[0]) return;
  backend_.pool2d_backward(bottom[0]->data(), top[0]->data(), top[0]->diff(), workspace_, bottom[0]->diff(), params_);
}

ABLATE_LAYERWISE_LAYER(pooling, PoolingLayer);
ABLATE_REGISTER_LAYER_BUILDER(layer_registry(), global_avg_pool,
                              [](const models::LayerSpec& spec, const models::LayerType&, kernels::Backend& backend,
                                 kernels::DType dtype) -> std::unique_ptr<Layer> {
                                return std::make_unique<PoolingLayer>(spec, backend, dtype, /*global=*/true);
                              });

}  // namespace ablate::graph::layerwise
