// AttentionLayer: multi-head self-attention as one layer (models/layers/attention.cpp), the way a
// layer-wise framework adds a new block: one class whose forward and backward call the Backend
// op by op and keep what the backward needs in buffers of their own (as Caffe's LSTM layer keeps
// its gates). With R = N T rows, B = N H batches of T x dh:
//   forward   q, k, v [R, D] = x W^T + b            (linear_forward, three GEMMs)
//             qh, kh, vh [N, H, T, dh]              (permute (0, 2, 1, 3) of [N, T, H, dh])
//             p [B, T, T] = softmax(qh kh^T / sqrt(dh))   (batched_gemm, softmax_last: p kept)
//             keep < 1, training: pd = p * mask (Backend::dropout_mask [N, H, T, T]), else pd is p
//             oh [B, T, dh] = pd vh,  o [R, D] = oh's heads side by side (permute back)
//             y = o Wo^T + bo
//   backward  the same ops reversed: do = dy Wo; dp = doh vh^T (* mask), dvh = pd^T doh;
//             ds = softmax_last_backward(p, dp); dqh = ds kh, dkh = ds^T qh;
//             dx = dq Wq + dk Wk + dv Wv (the last two added into the first)
// Parameter blobs: query_weight, query_bias, key_*, value_*, out_* (models::attention_parameter_suffixes).
#pragma once

#include "graph/layerwise/layer.h"

namespace ablate::graph::layerwise {

class AttentionLayer final : public Layer {
 public:
  AttentionLayer(const models::LayerSpec& spec, kernels::Backend& backend, kernels::DType dtype);
  const char* type() const override { return "MultiHeadAttention"; }
  void reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) override;
  void forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext& context) override;
  void run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                    const std::vector<Blob*>& bottom) override;

 protected:
  void layer_setup(const std::vector<Blob*>& bottom) override;

 private:
  // The blob of projection `k` (0 query, 1 key, 2 value, 3 out): weight, or bias.
  Blob& weight(int k) { return *blobs()[static_cast<std::size_t>(2 * k)]; }
  Blob& bias(int k) { return *blobs()[static_cast<std::size_t>(2 * k + 1)]; }
  kernels::Tensor buffer(const kernels::Shape& shape) const;

  int heads_;
  double keep_;         // the attention weights' keep probability (1: no dropout)
  bool masked_ = false;  // this forward dropped p out (training with keep_ < 1)
  std::int64_t n_ = 0, t_ = 0, d_ = 0, dh_ = 0;
  // Forward: projections [R, D] (the three of q, k, v; o), per-head [B, T, dh] (q, k, v; o), p [B, T, T].
  kernels::Tensor proj_[3], heads_qkv_[3], o_, oh_, p_;
  // Dropout on p: its mask [N, H, T, T] and the dropped weights pd [B, T, T] (empty when keep_ is 1).
  kernels::Tensor mask_, pd_;
  // Backward scratch: a gradient [R, D], per-head gradients [B, T, dh], dp [B, T, T].
  kernels::Tensor d_rows_, d_rows2_, d_heads_[3], dp_;
};

}  // namespace ablate::graph::layerwise
