// BatchNorm forward and backward through the Backend's batch normalisation ops (see
// batch_norm_layer.h).
#include "graph/layerwise/batch_norm_layer.h"

#include "graph/batch_norm_statistics.h"
#include "graph/layerwise/layer_factory.h"

namespace ablate::graph::layerwise {

BatchNormLayer::BatchNormLayer(const models::LayerSpec& spec, kernels::Backend& backend, kernels::DType dtype)
    : Layer(spec, backend, dtype), params_(models::batch_norm_params(spec)) {}

void BatchNormLayer::layer_setup(const std::vector<Blob*>& bottom) {
  const kernels::Shape& in = bottom[0]->shape();
  if (in.size() != 2 && in.size() != 4) fail("expects an input [N, C] or [N, C, H, W], got " + kernels::shape_string(in));
  const std::int64_t channels = in[1];
  if (params_.affine) {
    add_blob("weight", {channels});
    add_blob("bias", {channels});
  }
  for (const models::StateShape& s : models::batch_norm_state(params_, channels)) add_state(s.suffix, s.shape);
  mean_ = kernels::Tensor({channels}, dtype_, &backend_.allocator());
  var_ = kernels::Tensor({channels}, dtype_, &backend_.allocator());
}

void BatchNormLayer::reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) {
  const kernels::Shape& in = bottom[0]->shape();
  if ((in.size() != 2 && in.size() != 4) || in[1] != mean_.dim(0))
    fail("input " + kernels::shape_string(in) + " does not fit a batch_norm over " + std::to_string(mean_.dim(0)) +
         " channels");
  top[0]->reshape(in);
}

void BatchNormLayer::forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top,
                             const LayerContext& context) {
  const kernels::Tensor& x = bottom[0]->data();
  std::vector<kernels::Tensor*> state;
  for (auto& blob : state_blobs()) state.push_back(&blob->data());
  if (context.phase == Phase::train) {
    backend_.batch_norm_forward_training(x, weight(), bias(), params_.epsilon, top[0]->data(), mean_, var_);
    update_running_statistics(backend_, params_, values_per_channel(x.shape()), mean_, var_, state);
  } else {
    inference_statistics(backend_, params_, {state.begin(), state.end()}, mean_, var_);
    backend_.batch_norm_forward_inference(x, weight(), bias(), mean_, var_, params_.epsilon, top[0]->data());
  }
}

void BatchNormLayer::run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                                  const std::vector<Blob*>& bottom) {
  kernels::Tensor no_dx;
  kernels::Tensor& dweight = params_.affine ? blobs()[0]->diff() : none_;
  kernels::Tensor& dbias = params_.affine ? blobs()[1]->diff() : none_;
  backend_.batch_norm_backward(bottom[0]->data(), top[0]->diff(), weight(), mean_, var_, params_.epsilon,
                               propagate_down[0] ? bottom[0]->diff() : no_dx, dweight, dbias);
}

ABLATE_LAYERWISE_LAYER(batch_norm, BatchNormLayer);

}  // namespace ablate::graph::layerwise
