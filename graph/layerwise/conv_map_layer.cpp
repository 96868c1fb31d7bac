// Connection-table convolution forward and backward through the Backend's conv2d_map ops
// (see conv_map_layer.h).
#include "graph/layerwise/conv_map_layer.h"
#include "graph/layerwise/layer_factory.h"

#include <algorithm>

namespace ablate::graph::layerwise {

void ConvMapLayer::layer_setup(const std::vector<Blob*>& bottom) {
  require_dims(*bottom[0], 4, "[N, C, H, W]");
  const kernels::Shape& in = bottom[0]->shape();
  in_planes_ = in[1];
  geometry_ = models::conv_geometry(spec_, static_cast<int>(in[2]), static_cast<int>(in[3]));
  const std::vector<std::int32_t> pairs = models::connection_table(spec_, static_cast<int>(in_planes_));
  const std::int64_t connections = static_cast<std::int64_t>(pairs.size() / 2);
  kernels::Tensor host({connections, 2}, kernels::DType::i32);
  std::copy(pairs.begin(), pairs.end(), host.data<std::int32_t>());
  table_ = kernels::Tensor(host.shape(), kernels::DType::i32, &backend_.allocator());
  backend_.copy(host, table_);
  add_blob("weight", {connections, geometry_.kernel_h, geometry_.kernel_w});
  if (geometry_.bias) add_blob("bias", {geometry_.outputs});
}

void ConvMapLayer::reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) {
  require_dims(*bottom[0], 4, "[N, C, H, W]");
  const kernels::Shape& in = bottom[0]->shape();
  if (in[1] != in_planes_)
    fail("input " + kernels::shape_string(in) + " has " + std::to_string(in[1]) + " planes; the connection table was "
         "drawn for " + std::to_string(in_planes_));
  geometry_ = models::conv_geometry(spec_, static_cast<int>(in[2]), static_cast<int>(in[3]));
  top[0]->reshape({in[0], geometry_.outputs, geometry_.out_h, geometry_.out_w});
}

void ConvMapLayer::forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext&) {
  const kernels::Tensor& bias = geometry_.bias ? blobs()[1]->data() : no_bias_;
  backend_.conv2d_map_forward(bottom[0]->data(), blobs()[0]->data(), bias, table_, top[0]->data(), geometry_.params);
}

void ConvMapLayer::run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                                const std::vector<Blob*>& bottom) {
  kernels::Tensor& dbias = geometry_.bias ? blobs()[1]->diff() : no_bias_;
  backend_.conv2d_map_backward_weights(bottom[0]->data(), top[0]->diff(), table_, blobs()[0]->diff(), dbias,
                                       geometry_.params);
  if (propagate_down[0])
    backend_.conv2d_map_backward_data(top[0]->diff(), blobs()[0]->data(), table_, bottom[0]->diff(), geometry_.params);
}

ABLATE_LAYERWISE_LAYER(conv_map, ConvMapLayer);

}  // namespace ablate::graph::layerwise
