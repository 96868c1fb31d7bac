// Dropout forward and backward through Backend::dropout_mask and mul (see dropout_layer.h).
#include "graph/layerwise/dropout_layer.h"
#include "graph/layerwise/layer_factory.h"

#include "graph/dropout_seed.h"
#include "models/layer_params.h"

namespace ablate::graph::layerwise {

DropoutLayer::DropoutLayer(const models::LayerSpec& spec, kernels::Backend& backend, kernels::DType dtype)
    : Layer(spec, backend, dtype),
      keep_(models::dropout_keep(spec)),
      mask_(spec.name + ".mask", dtype, backend.allocator(), /*with_diff=*/false) {}

void DropoutLayer::reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) {
  if (top[0] != bottom[0]) top[0]->reshape(bottom[0]->shape());
  mask_.reshape(bottom[0]->shape());
}

void DropoutLayer::forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext& context) {
  masked_ = context.phase == Phase::train;
  if (masked_) {
    backend_.dropout_mask(mask_.data(), keep_, dropout_seed(context.seed, name(), context.iteration),
                          dropout_first_index(context.first_sample, mask_.data()));
    backend_.mul(bottom[0]->data(), mask_.data(), top[0]->data());
  } else if (top[0] != bottom[0]) {
    backend_.copy(bottom[0]->data(), top[0]->data());
  }
}

void DropoutLayer::run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                                const std::vector<Blob*>& bottom) {
  if (!propagate_down[0]) return;
  if (masked_)
    backend_.mul(top[0]->diff(), mask_.data(), bottom[0]->diff());
  else if (top[0] != bottom[0])
    backend_.copy(top[0]->diff(), bottom[0]->diff());
}

ABLATE_LAYERWISE_LAYER(dropout, DropoutLayer);

}  // namespace ablate::graph::layerwise
