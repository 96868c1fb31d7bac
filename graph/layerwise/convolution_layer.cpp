// Convolution forward and backward through the Backend's conv2d ops (see convolution_layer.h).
#include "graph/layerwise/convolution_layer.h"
#include "graph/layerwise/layer_factory.h"

namespace ablate::graph::layerwise {

void ConvolutionLayer::layer_setup(const std::vector<Blob*>& bottom) {
  require_dims(*bottom[0], 4, "[N, C, H, W]");
  const kernels::Shape& in = bottom[0]->shape();
  geometry_ = models::conv_geometry(spec_, static_cast<int>(in[2]), static_cast<int>(in[3]));
  add_blob("weight", {geometry_.outputs, in[1], geometry_.kernel_h, geometry_.kernel_w});
  if (geometry_.bias) add_blob("bias", {geometry_.outputs});
}

void ConvolutionLayer::reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) {
  require_dims(*bottom[0], 4, "[N, C, H, W]");
  const kernels::Shape& in = bottom[0]->shape();
  if (in[1] != blobs()[0]->shape()[1])
    fail("input " + kernels::shape_string(in) + " has " + std::to_string(in[1]) + " channels; the weight " +
         kernels::shape_string(blobs()[0]->shape()) + " expects " + std::to_string(blobs()[0]->shape()[1]));
  geometry_ = models::conv_geometry(spec_, static_cast<int>(in[2]), static_cast<int>(in[3]));
  top[0]->reshape({in[0], geometry_.outputs, geometry_.out_h, geometry_.out_w});
}

void ConvolutionLayer::forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext&) {
  const kernels::Tensor& bias = geometry_.bias ? blobs()[1]->data() : no_bias_;
  backend_.conv2d_forward(bottom[0]->data(), blobs()[0]->data(), bias, top[0]->data(), geometry_.params);
}

void ConvolutionLayer::run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                                    const std::vector<Blob*>& bottom) {
  kernels::Tensor& dbias = geometry_.bias ? blobs()[1]->diff() : no_bias_;
  backend_.conv2d_backward_weights(bottom[0]->data(), top[0]->diff(), blobs()[0]->diff(), dbias, geometry_.params);
  if (propagate_down[0])
    backend_.conv2d_backward_data(top[0]->diff(), blobs()[0]->data(), bottom[0]->diff(), geometry_.params);
}

ABLATE_LAYERWISE_LAYER(convolution, ConvolutionLayer);

}  // namespace ablate::graph::layerwise
