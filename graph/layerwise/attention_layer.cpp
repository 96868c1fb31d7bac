// Multi-head self-attention forward and backward through the Backend (see attention_layer.h).
#include "graph/layerwise/attention_layer.h"

#include <cmath>

#include "graph/dropout_seed.h"
#include "graph/layerwise/layer_factory.h"
#include "models/layer_params.h"

namespace ablate::graph::layerwise {
namespace {

const std::vector<int> kHeadsApart{0, 2, 1, 3};  // [N, T, H, dh] <-> [N, H, T, dh] (its own inverse)

}  // namespace

AttentionLayer::AttentionLayer(const models::LayerSpec& spec, kernels::Backend& backend, kernels::DType dtype)
    : Layer(spec, backend, dtype), heads_(models::attention_heads(spec)), keep_(models::attention_keep(spec)) {}

kernels::Tensor AttentionLayer::buffer(const kernels::Shape& shape) const {
  return kernels::Tensor(shape, dtype_, &backend_.allocator());
}

void AttentionLayer::layer_setup(const std::vector<Blob*>& bottom) {
  require_dims(*bottom[0], 3, "[N, T, D]");
  const std::int64_t d = bottom[0]->shape()[2];
  for (const std::string& suffix : models::attention_parameter_suffixes())
    add_blob(suffix, suffix.ends_with("weight") ? kernels::Shape{d, d} : kernels::Shape{d});
}

void AttentionLayer::reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) {
  require_dims(*bottom[0], 3, "[N, T, D]");
  const kernels::Shape& in = bottom[0]->shape();
  if (in[2] != weight(0).shape()[0] || in[2] % heads_ != 0)
    fail("input " + kernels::shape_string(in) + " does not fit an attention of width " +
         std::to_string(weight(0).shape()[0]) + " and " + std::to_string(heads_) + " heads");
  top[0]->reshape(in);
  if (in[0] == n_ && in[1] == t_) return;
  n_ = in[0], t_ = in[1], d_ = in[2], dh_ = d_ / heads_;
  const kernels::Shape rows{n_ * t_, d_}, per_head{n_ * heads_, t_, dh_}, scores{n_ * heads_, t_, t_};
  for (int k = 0; k < 3; ++k) {
    proj_[k] = buffer(rows);
    heads_qkv_[k] = buffer(per_head);
    d_heads_[k] = buffer(per_head);
  }
  o_ = buffer(rows), oh_ = buffer(per_head), p_ = buffer(scores);
  d_rows_ = buffer(rows), d_rows2_ = buffer(rows), dp_ = buffer(scores);
  if (keep_ < 1) mask_ = buffer({n_, heads_, t_, t_}), pd_ = buffer(scores);
}

void AttentionLayer::forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext& context) {
  const kernels::Shape split{n_, t_, heads_, dh_}, apart{n_, heads_, t_, dh_};
  const kernels::Tensor x = bottom[0]->data().reshaped({n_ * t_, d_});
  for (int k = 0; k < 3; ++k) {
    backend_.linear_forward(x, weight(k).data(), bias(k).data(), proj_[k]);
    kernels::Tensor h = heads_qkv_[k].reshaped(apart);
    backend_.permute(proj_[k].reshaped(split), kHeadsApart, h);
  }
  backend_.batched_gemm(false, true, 1.0, heads_qkv_[0], heads_qkv_[1], 0.0, p_);
  backend_.softmax_last_forward(p_, 1.0 / std::sqrt(static_cast<double>(dh_)), p_);
  masked_ = context.phase == Phase::train && keep_ < 1;
  if (masked_) {
    backend_.dropout_mask(mask_, keep_, dropout_seed(context.seed, models::attention_dropout_key(spec()), context.iteration),
                          dropout_first_index(context.first_sample, mask_));
    backend_.mul(p_, mask_.reshaped(p_.shape()), pd_);
  }
  backend_.batched_gemm(false, false, 1.0, masked_ ? pd_ : p_, heads_qkv_[2], 0.0, oh_);
  kernels::Tensor o = o_.reshaped(split);
  backend_.permute(oh_.reshaped(apart), kHeadsApart, o);
  kernels::Tensor y = top[0]->data().reshaped({n_ * t_, d_});
  backend_.linear_forward(o_, weight(3).data(), bias(3).data(), y);
}

void AttentionLayer::run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                                  const std::vector<Blob*>& bottom) {
  const kernels::Shape split{n_, t_, heads_, dh_}, apart{n_, heads_, t_, dh_};
  const kernels::Tensor dy = top[0]->diff().reshaped({n_ * t_, d_});
  backend_.linear_backward_weights(o_, dy, weight(3).diff(), bias(3).diff());
  backend_.linear_backward_data(dy, weight(3).data(), d_rows_);
  kernels::Tensor doh = oh_;  // d(oh) reuses oh's buffer: oh is not read again
  kernels::Tensor doh_apart = doh.reshaped(apart);
  backend_.permute(d_rows_.reshaped(split), kHeadsApart, doh_apart);
  backend_.batched_gemm(false, true, 1.0, doh, heads_qkv_[2], 0.0, dp_);  // dp = doh vh^T
  if (masked_) backend_.mul(dp_, mask_.reshaped(dp_.shape()), dp_);       // through the dropout
  backend_.batched_gemm(true, false, 1.0, masked_ ? pd_ : p_, doh, 0.0, d_heads_[2]);  // dvh = pd^T doh
  backend_.softmax_last_backward(p_, dp_, 1.0 / std::sqrt(static_cast<double>(dh_)), dp_);  // ds
  backend_.batched_gemm(false, false, 1.0, dp_, heads_qkv_[1], 0.0, d_heads_[0]);  // dqh = ds kh
  backend_.batched_gemm(true, false, 1.0, dp_, heads_qkv_[0], 0.0, d_heads_[1]);   // dkh = ds^T qh
  const kernels::Tensor x = bottom[0]->data().reshaped({n_ * t_, d_});
  kernels::Tensor dx = propagate_down[0] ? bottom[0]->diff().reshaped({n_ * t_, d_}) : kernels::Tensor();
  // dv, dk, dq [R, D] in turn: the latest projection first, the order of the tape's and the
  // symbolic gradient's backward, so the input gradient sums (dv + dk) + dq as they do and
  // `ablate explain` pairs each projection's gradient ops with theirs.
  for (int k = 2; k >= 0; --k) {
    kernels::Tensor d_split = d_rows_.reshaped(split);
    backend_.permute(d_heads_[k].reshaped(apart), kHeadsApart, d_split);
    backend_.linear_backward_weights(x, d_rows_, weight(k).diff(), bias(k).diff());
    if (dx.empty()) continue;
    if (k == 2) {
      backend_.linear_backward_data(d_rows_, weight(k).data(), dx);
    } else {
      backend_.linear_backward_data(d_rows_, weight(k).data(), d_rows2_);
      backend_.axpy(1.0, d_rows2_, dx);
    }
  }
}

ABLATE_LAYERWISE_LAYER(attention, AttentionLayer);

}  // namespace ablate::graph::layerwise
