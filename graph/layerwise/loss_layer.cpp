// Shape checks shared by the loss layers (see loss_layer.h).
#include "graph/layerwise/loss_layer.h"

namespace ablate::graph::layerwise {

void LossLayer::reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>&) {
  require_dims(*bottom[0], 2, "[N, K]");
  if (bottom[1]->shape() != kernels::Shape{bottom[0]->shape()[0]} || bottom[1]->dtype() != kernels::DType::i32)
    fail("labels " + std::string(kernels::dtype_name(bottom[1]->dtype())) + kernels::shape_string(bottom[1]->shape()) +
         " do not match the scores " + kernels::shape_string(bottom[0]->shape()) + "; expected i32[N]");
}

}  // namespace ablate::graph::layerwise
