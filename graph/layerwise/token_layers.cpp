// Forward and backward of the token layers (see token_layers.h), each a view of its blobs and
// one or two Backend ops.
#include "graph/layerwise/token_layers.h"

#include "graph/layerwise/layer_factory.h"
#include "models/layer_params.h"

namespace ablate::graph::layerwise {
namespace {

// [N, C, H, W] viewed as [N, C, H*W].
kernels::Tensor planes(kernels::Tensor& t) { return t.reshaped({t.dim(0), t.dim(1), t.dim(2) * t.dim(3)}); }
// [N, T, D] viewed as [N, T*D] (one bias over a sample's values), or as [N, 1, T, D] (a plane to pool).
kernels::Tensor samples(kernels::Tensor& t) { return t.reshaped({t.dim(0), t.numel() / t.dim(0)}); }
kernels::Tensor plane(kernels::Tensor& t, const kernels::Shape& s) { return t.reshaped({s[0], 1, s[1], s[2]}); }

}  // namespace

void TokensLayer::reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) {
  require_dims(*bottom[0], 4, "[N, C, H, W]");
  const kernels::Shape& in = bottom[0]->shape();
  top[0]->reshape({in[0], in[2] * in[3], in[1]});
}

void TokensLayer::forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext&) {
  backend_.permute(planes(bottom[0]->data()), {0, 2, 1}, top[0]->data());
}

void TokensLayer::run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                               const std::vector<Blob*>& bottom) {
  if (!propagate_down[0]) return;
  kernels::Tensor dx = planes(bottom[0]->diff());
  backend_.permute(top[0]->diff(), {0, 2, 1}, dx);
}

void PosEmbedLayer::layer_setup(const std::vector<Blob*>& bottom) {
  require_dims(*bottom[0], 3, "[N, T, D]");
  add_blob("weight", {bottom[0]->shape()[1], bottom[0]->shape()[2]});
}

void PosEmbedLayer::reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) {
  require_dims(*bottom[0], 3, "[N, T, D]");
  const kernels::Shape& in = bottom[0]->shape();
  if (in[1] != blobs()[0]->shape()[0] || in[2] != blobs()[0]->shape()[1])
    fail("input " + kernels::shape_string(in) + " does not fit the position embedding " +
         kernels::shape_string(blobs()[0]->shape()));
  top[0]->reshape(in);
}

void PosEmbedLayer::forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext&) {
  backend_.copy(bottom[0]->data(), top[0]->data());
  kernels::Tensor y = samples(top[0]->data());
  backend_.bias_add(y, blobs()[0]->data().reshaped({blobs()[0]->count()}));
}

void PosEmbedLayer::run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                                 const std::vector<Blob*>& bottom) {
  kernels::Tensor dweight = blobs()[0]->diff().reshaped({blobs()[0]->count()});
  backend_.bias_backward(samples(top[0]->diff()), dweight);
  if (propagate_down[0]) backend_.copy(top[0]->diff(), bottom[0]->diff());
}

void TokenMeanLayer::reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) {
  require_dims(*bottom[0], 3, "[N, T, D]");
  const kernels::Shape& in = bottom[0]->shape();
  params_ = models::token_mean_pool_params(in[1], in[2]);
  top[0]->reshape({in[0], in[2]});
}

void TokenMeanLayer::forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext&) {
  const kernels::Shape& in = bottom[0]->shape();
  kernels::Tensor y = top[0]->data().reshaped({in[0], 1, 1, in[2]});
  backend_.pool2d_forward(plane(bottom[0]->data(), in), y, workspace_, params_);
}

void TokenMeanLayer::run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                                  const std::vector<Blob*>& bottom) {
  if (!propagate_down[0]) return;
  const kernels::Shape& in = bottom[0]->shape();
  const kernels::Shape out{in[0], 1, 1, in[2]};
  kernels::Tensor dx = plane(bottom[0]->diff(), in);
  backend_.pool2d_backward(plane(bottom[0]->data(), in), top[0]->data().reshaped(out), top[0]->diff().reshaped(out),
                           workspace_, dx, params_);
}

ABLATE_LAYERWISE_LAYER(tokens, TokensLayer);
ABLATE_LAYERWISE_LAYER(pos_embed, PosEmbedLayer);
ABLATE_LAYERWISE_LAYER(token_mean, TokenMeanLayer);

}  // namespace ablate::graph::layerwise
