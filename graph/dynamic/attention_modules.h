// The modules of a Vision Transformer's layer types, as a PyTorch user writes a ViT
// from eager ops (timm's VisionTransformer before F.scaled_dot_product_attention):
//   tokens      x.flatten(2).transpose(1, 2): permute of [N, C, H*W] by (0, 2, 1)
//   pos_embed   x + pos_embed: bias_add over [N, T*D] with the weight viewed as [T*D]
//   token_mean  x.mean(1): avg pool2d of [N, 1, T, D] with one T x 1 window
//   layer_norm  F.layer_norm over the last axis
//   attention   multi-head self-attention from its parts on the tape: three linears over the N*T
//               rows, heads apart (permute), q k^T (batched_matmul), softmax_last, in training with
//               keep < 1 a dropout of p (TrainingDropout), p v, heads back,
//               the output linear; the tape records each part, so backward is theirs
#pragma once

#include "graph/dynamic/module.h"
#include "graph/dynamic/training_dropout.h"

namespace ablate::graph::dynamic {

class TokensModule final : public Module {
 public:
  using Module::Module;
  const char* type() const override { return "Tokens"; }
  Variable forward(const Variable& x, const ForwardContext& context) override;
};

class PosEmbedModule final : public Module {
 public:
  PosEmbedModule(const models::LayerSpec& spec, std::vector<Variable> parameters);
  const char* type() const override { return "PosEmbed"; }
  Variable forward(const Variable& x, const ForwardContext& context) override;
};

class TokenMeanModule final : public Module {
 public:
  explicit TokenMeanModule(const models::LayerSpec& spec) : Module(spec, {}) {}
  const char* type() const override { return "TokenMean"; }
  Variable forward(const Variable& x, const ForwardContext& context) override;
};

class LayerNormModule final : public Module {
 public:
  LayerNormModule(const models::LayerSpec& spec, std::vector<Variable> parameters);
  const char* type() const override { return "LayerNorm"; }
  Variable forward(const Variable& x, const ForwardContext& context) override;

 private:
  double epsilon_;
};

class AttentionModule final : public Module {
 public:
  AttentionModule(const models::LayerSpec& spec, std::vector<Variable> parameters);
  const char* type() const override { return "MultiheadAttention"; }
  Variable forward(const Variable& x, const ForwardContext& context) override;

 private:
  int heads_;
  TrainingDropout dropout_;  // on the attention weights (keep=)
};

}  // namespace ablate::graph::dynamic
