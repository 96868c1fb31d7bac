// LogSoftmax forward and backward through the Backend's log_softmax ops (see log_softmax_layer.h).
#include "graph/layerwise/log_softmax_layer.h"
#include "graph/layerwise/layer_factory.h"

namespace ablate::graph::layerwise {

void LogSoftmaxLayer::reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) {
  require_dims(*bottom[0], 2, "[N, K]");
  top[0]->reshape(bottom[0]->shape());
}

void LogSoftmaxLayer::forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext&) {
  backend_.log_softmax_forward(bottom[0]->data(), top[0]->data());
}

void LogSoftmaxLayer::run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                                   const std::vector<Blob*>& bottom) {
  if (!propagate_down[0]) return;
  backend_.log_softmax_backward(top[0]->data(), top[0]->diff(), bottom[0]->diff());
}

ABLATE_LAYERWISE_LAYER(log_softmax, LogSoftmaxLayer);

}  // namespace ablate::graph::layerwise
