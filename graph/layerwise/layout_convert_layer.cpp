// Layout conversion forward and backward (see layout_convert_layer.h).
#include "graph/layerwise/layout_convert_layer.h"

namespace ablate::graph::layerwise {

void LayoutConvertLayer::reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) {
  top[0]->reshape(bottom[0]->shape());
}

void LayoutConvertLayer::forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext&) {
  backend_.copy(bottom[0]->data(), top[0]->data());
}

void LayoutConvertLayer::run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                                      const std::vector<Blob*>& bottom) {
  if (propagate_down[0]) backend_.copy(top[0]->diff(), bottom[0]->diff());
}

}  // namespace ablate::graph::layerwise
