// SoftmaxWithLoss forward and backward through Backend::softmax_xent_* (see softmax_loss_layer.h).
#include "graph/layerwise/softmax_loss_layer.h"
#include "graph/layerwise/layer_factory.h"

namespace ablate::graph::layerwise {

SoftmaxWithLossLayer::SoftmaxWithLossLayer(const models::LayerSpec& spec, kernels::Backend& backend,
                                           kernels::DType dtype)
    : LossLayer(spec, backend, dtype), prob_(spec.name + ".prob", dtype, backend.allocator(), /*with_diff=*/false) {}

void SoftmaxWithLossLayer::reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) {
  LossLayer::reshape(bottom, top);
  prob_.reshape(bottom[0]->shape());
}

void SoftmaxWithLossLayer::forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>&, const LayerContext&) {
  loss_ = backend_.softmax_xent_forward(bottom[0]->data(), bottom[1]->data(), prob_.data());
}

void SoftmaxWithLossLayer::run_backward(const std::vector<Blob*>&, const std::vector<bool>& propagate_down,
                                        const std::vector<Blob*>& bottom) {
  if (!propagate_down[0]) return;
  backend_.softmax_xent_backward(prob_.data(), bottom[1]->data(), gradient_scale(*bottom[0]), bottom[0]->diff());
}

ABLATE_LAYERWISE_LAYER(softmax_loss, SoftmaxWithLossLayer);

}  // namespace ablate::graph::layerwise
