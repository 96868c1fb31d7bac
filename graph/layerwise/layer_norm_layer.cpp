// LayerNorm forward and backward through the Backend's layer_norm ops (see layer_norm_layer.h).
#include "graph/layerwise/layer_norm_layer.h"

#include "graph/layerwise/layer_factory.h"
#include "models/layer_params.h"

namespace ablate::graph::layerwise {

LayerNormLayer::LayerNormLayer(const models::LayerSpec& spec, kernels::Backend& backend, kernels::DType dtype)
    : Layer(spec, backend, dtype), epsilon_(models::layer_norm_epsilon(spec)) {}

void LayerNormLayer::layer_setup(const std::vector<Blob*>& bottom) {
  const kernels::Shape& in = bottom[0]->shape();
  if (in.size() < 2) fail("expects an input [N, ..., D], got " + kernels::shape_string(in));
  add_blob("weight", {in.back()});
  add_blob("bias", {in.back()});
}

void LayerNormLayer::reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) {
  const kernels::Shape& in = bottom[0]->shape();
  if (in.size() < 2 || in.back() != blobs()[0]->count())
    fail("input " + kernels::shape_string(in) + " does not fit a layer_norm over " +
         std::to_string(blobs()[0]->count()) + " features");
  const std::int64_t rows = bottom[0]->count() / in.back();
  if (mean_.empty() || mean_.dim(0) != rows) {
    mean_ = kernels::Tensor({rows}, dtype_, &backend_.allocator());
    rstd_ = kernels::Tensor({rows}, dtype_, &backend_.allocator());
  }
  top[0]->reshape(in);
}

void LayerNormLayer::forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext&) {
  backend_.layer_norm_forward(bottom[0]->data(), blobs()[0]->data(), blobs()[1]->data(), epsilon_, top[0]->data(),
                              mean_, rstd_);
}

void LayerNormLayer::run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                                  const std::vector<Blob*>& bottom) {
  kernels::Tensor no_dx;
  backend_.layer_norm_backward(bottom[0]->data(), top[0]->diff(), blobs()[0]->data(), mean_, rstd_,
                               propagate_down[0] ? bottom[0]->diff() : no_dx, blobs()[0]->diff(), blobs()[1]->diff());
}

ABLATE_LAYERWISE_LAYER(layer_norm, LayerNormLayer);

}  // namespace ablate::graph::layerwise
