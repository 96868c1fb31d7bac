// Eltwise SUM forward and backward through Backend::add, axpy and copy (see eltwise_layer.h).
#include "graph/layerwise/eltwise_layer.h"
#include "graph/layerwise/layer_factory.h"

namespace ablate::graph::layerwise {

void EltwiseLayer::reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) {
  for (std::size_t k = 1; k < bottom.size(); ++k)
    if (bottom[k]->shape() != bottom[0]->shape())
      fail("sums bottoms of different shapes: " + kernels::shape_string(bottom[0]->shape()) + " and " +
           kernels::shape_string(bottom[k]->shape()));
  top[0]->reshape(bottom[0]->shape());
}

void EltwiseLayer::forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext&) {
  kernels::Tensor& y = top[0]->data();
  backend_.add(bottom[0]->data(), bottom[1]->data(), y);
  for (std::size_t k = 2; k < bottom.size(); ++k) backend_.axpy(1.0, bottom[k]->data(), y);
}

void EltwiseLayer::run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                                const std::vector<Blob*>& bottom) {
  for (std::size_t k = 0; k < bottom.size(); ++k)
    if (propagate_down[k]) backend_.copy(top[0]->diff(), bottom[k]->diff());
}

ABLATE_LAYERWISE_LAYER(add, EltwiseLayer);

}  // namespace ablate::graph::layerwise
