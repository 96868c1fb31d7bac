// NLL loss forward and backward through Backend::nll_* (see nll_loss_layer.h).
#include "graph/layerwise/nll_loss_layer.h"
#include "graph/layerwise/layer_factory.h"

namespace ablate::graph::layerwise {

void NllLossLayer::forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>&, const LayerContext&) {
  loss_ = backend_.nll_forward(bottom[0]->data(), bottom[1]->data());
}

void NllLossLayer::run_backward(const std::vector<Blob*>&, const std::vector<bool>& propagate_down,
                                const std::vector<Blob*>& bottom) {
  if (!propagate_down[0]) return;
  backend_.nll_backward(bottom[1]->data(), gradient_scale(*bottom[0]), bottom[0]->diff());
}

ABLATE_LAYERWISE_LAYER(nll_loss, NllLossLayer);

}  // namespace ablate::graph::layerwise
