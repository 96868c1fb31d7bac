// Split forward (shared data) and backward (the sum of the top diffs) (see split_layer.h).
#include "graph/layerwise/split_layer.h"

namespace ablate::graph::layerwise {

SplitLayer::SplitLayer(const models::LayerSpec& spec, int tops, kernels::Backend& backend, kernels::DType dtype)
    : Layer(spec, backend, dtype), tops_(tops) {
  if (tops < 2) fail("a split into " + std::to_string(tops) + " tops; expected at least 2");
}

void SplitLayer::reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) {
  for (Blob* t : top) {
    t->share_data(*bottom[0]);
    t->reshape(bottom[0]->shape());
  }
}

// The tops see the bottom's data since reshape (Caffe's ShareData each forward): nothing to run.
void SplitLayer::forward(const std::vector<Blob*>&, const std::vector<Blob*>&, const LayerContext&) {}

void SplitLayer::run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                              const std::vector<Blob*>& bottom) {
  if (!propagate_down[0]) return;
  kernels::Tensor& diff = bottom[0]->diff();
  backend_.add(top[0]->diff(), top[1]->diff(), diff);  // Caffe: caffe_add of the first two, then axpy
  for (std::size_t k = 2; k < top.size(); ++k) backend_.axpy(1.0, top[k]->diff(), diff);
}

}  // namespace ablate::graph::layerwise
