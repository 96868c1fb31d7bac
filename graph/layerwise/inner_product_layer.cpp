// InnerProduct forward and backward through the Backend's linear ops (see inner_product_layer.h).
#include "graph/layerwise/inner_product_layer.h"
#include "graph/layerwise/layer_factory.h"

#include "models/layer_params.h"

namespace ablate::graph::layerwise {

kernels::Shape InnerProductLayer::flat_shape(const Blob& bottom) const {
  const kernels::Shape& in = bottom.shape();
  if (in.size() < 2) fail("expects an input [N, ...], got " + kernels::shape_string(in));
  if (last_axis_) return {bottom.count() / in.back(), in.back()};
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
  kernels::Shape out{flat[0], w[0]};
  if (last_axis_) {
    out = bottom[0]->shape();
    out.back() = w[0];
  }
  top[0]->reshape(out);
}

void InnerProductLayer::forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext&) {
  const kernels::Tensor x = bottom[0]->data().reshaped(flat_shape(*bottom[0]));
  kernels::Tensor y = flat_top(top[0]->data());
  backend_.linear_forward(x, blobs()[0]->data(), bias_ ? blobs()[1]->data() : no_bias_, y);
}

void InnerProductLayer::run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                                     const std::vector<Blob*>& bottom) {
  const kernels::Shape flat = flat_shape(*bottom[0]);
  const kernels::Tensor x = bottom[0]->data().reshaped(flat);
  const kernels::Tensor dy = flat_top(top[0]->diff());
  backend_.linear_backward_weights(x, dy, blobs()[0]->diff(), bias_ ? blobs()[1]->diff() : no_bias_);
  if (propagate_down[0]) {
    kernels::Tensor dx = bottom[0]->diff().reshaped(flat);
    backend_.linear_backward_data(dy, blobs()[0]->data(), dx);
  }
}

ABLATE_LAYERWISE_LAYER(inner_product, InnerProductLayer);
ABLATE_REGISTER_LAYER_BUILDER(layer_registry(), linear,
                              [](const models::LayerSpec& spec, const models::LayerType&, kernels::Backend& backend,
                                 kernels::DType dtype) -> std::unique_ptr<Layer> {
                                return std::make_unique<InnerProductLayer>(spec, backend, dtype, /*last_axis=*/true);
                              });

}  // namespace ablate::graph::layerwise
