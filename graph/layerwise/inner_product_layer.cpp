// InnerProduct forward and backward through the Backend's linear ops (see inner_product_layer.h).
#include "graph/layerwise/inner_product_layer.h"
#include "graph/layerwise/layer_factory.h"

#include "models/layer_params.h"

namespace ablate::graph::layerwise {

kernels::Shape InnerProductLayer::flat_shape(const Blob& bottom) const {
  const kernels::Shape& in = bottom.shape();
  if (in.size() < 2) fail("expects an input [N, ...], got " + kernels::shape_string(in));
  return {in[0], bottom.count() / in[0]};
}

void InnerProductLayer::layer_setup(const std::vector<Blob*>& bottom) {
  const std::int64_t features = flat_shape(*bottom[0])[1];
  const int outputs = models::layer_outputs(spec_);
  bias_ = models::layer_has_bias(spec_);
  add_blob("weight", {outputs, features});
  if (bias_) add_blob("bias", {outputs});
}

void InnerProductLayer::reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) {
  const kernels::Shape flat = flat_shape(*bottom[0]);
  const kernels::Shape& w = blobs()[0]->shape();
  if (flat[1] != w[1])
    fail("input " + kernels::shape_string(bottom[0]->shape()) + " has " + std::to_string(flat[1]) +
         " features per sample; the weight " + kernels::shape_string(w) + " expects " + std::to_string(w[1]));
  top[0]->reshape({flat[0], w[0]});
}

void InnerProductLayer::forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext&) {
  const kernels::Tensor x = bottom[0]->data().reshaped(flat_shape(*bottom[0]));
  backend_.linear_forward(x, blobs()[0]->data(), bias_ ? blobs()[1]->data() : no_bias_, top[0]->data());
}

void InnerProductLayer::run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                                     const std::vector<Blob*>& bottom) {
  const kernels::Shape flat = flat_shape(*bottom[0]);
  const kernels::Tensor x = bottom[0]->data().reshaped(flat);
  backend_.linear_backward_weights(x, top[0]->diff(), blobs()[0]->diff(), bias_ ? blobs()[1]->diff() : no_bias_);
  if (propagate_down[0]) {
    kernels::Tensor dx = bottom[0]->diff().reshaped(flat);
    backend_.linear_backward_data(top[0]->diff(), blobs()[0]->data(), dx);
  }
}

ABLATE_LAYERWISE_LAYER(inner_product, InnerProductLayer);

}  // namespace ablate::graph::layerwise
