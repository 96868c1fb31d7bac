// LRN forward and backward through the Backend's lrn ops (see lrn_layer.h).
#include "graph/layerwise/lrn_layer.h"
#include "graph/layerwise/layer_factory.h"

#include "models/layer_params.h"

namespace ablate::graph::layerwise {

LrnLayer::LrnLayer(const models::LayerSpec& spec, kernels::Backend& backend, kernels::DType dtype)
    : Layer(spec, backend, dtype), params_(models::lrn_params(spec)) {}

void LrnLayer::reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) {
  require_dims(*bottom[0], 4, "[N, C, H, W]");
  top[0]->reshape(bottom[0]->shape());
}

void LrnLayer::forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext&) {
  backend_.lrn_forward(bottom[0]->data(), top[0]->data(), workspace_, params_);
}

void LrnLayer::run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                            const std::vector<Blob*>& bottom) {
  if (!propagate_down[0]) return;
  backend_.lrn_backward(bottom[0]->data(), top[0]->data(), top[0]->diff(), workspace_, bottom[0]->diff(), params_);
}

ABLATE_LAYERWISE_LAYER(lrn, LrnLayer);

}  // namespace ablate::graph::layerwise
