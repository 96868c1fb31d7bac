// attention: multi-head self-attention (Vaswani et al. 2017), PyTorch's
// nn.MultiheadAttention(D, heads, batch_first=True)(x, x, x) with separate projections:
//   [N, T, D] -> [N, T, D], heads H dividing D, dh = D / H
//   Q = x Wq^T + bq, K = x Wk^T + bk, V = x Wv^T + bv         (one GEMM each over N*T rows)
//   per sample and head: P = softmax(Q_h K_h^T / sqrt(dh)) along the last axis, O_h = P V_h
//   keep=K < 1: in training P is dropped out first, O_h = (P * mask / K) V_h with mask [N, H, T, T]
//   drawn as a dropout layer's (PyTorch's dropout=1-K on the attention weights; default K = 1)
//   y = concat_h(O_h) Wo^T + bo
// Parameters, in order: query_weight [D, D], query_bias [D], key_*, value_*, out_* (xavier
// weights, zero biases, as nn.MultiheadAttention starts its in_proj; each <suffix>_init, _lr_mult,
// _decay_mult may be given). Each strategy runs it through Backend::linear_forward, permute
// (heads apart: [N, T, H, dh] -> [N, H, T, dh]), batched_gemm and softmax_last.
//   flops: 8 N T D^2 (projections) + 4 N T^2 D (Q K^T and P V)
#include "kernels/tensor.h"
#include "models/layer_params.h"
#include "models/layers/layer_kit.h"

namespace ablate::models::layers {
namespace {

LayerType describe() {
  LayerType t;
  t.name = "attention";
  std::vector<std::vector<KeyRule>> keys{
      {{"heads", kind(ValueKind::positive_integer)}, {"keep", kind(ValueKind::keep_probability)}}};
  for (const std::string& suffix : attention_parameter_suffixes()) keys.push_back(param_keys(suffix));
  t.keys = joined(keys);
  t.shape = [](const LayerSpec& layer, const ModelSpec&, LayerShapes& s) {
    require_tokens(layer, s.input, "self-attention over the tokens");
    const std::int64_t d = s.input[2], heads = attention_heads(layer);
    if (d % heads != 0)
      layer.fail("has heads=" + std::to_string(heads) + ", which does not divide the width D = " + std::to_string(d) +
                 " of its input " + kernels::shape_string(s.input) + " (each head takes D / heads features)");
    s.output = s.input;
    for (const std::string& suffix : attention_parameter_suffixes())
      s.add_param(suffix, suffix.ends_with("weight") ? Dims{d, d} : Dims{d});
  };
  for (const std::string& suffix : attention_parameter_suffixes())
    if (suffix.ends_with("weight")) t.default_inits.push_back({suffix, "xavier"});
  t.flops = [](const LayerSpec&, const LayerShapes& s) {
    const double n = static_cast<double>(s.input[0]), tokens = static_cast<double>(s.input[1]),
                 d = static_cast<double>(s.input[2]);
    return 8 * n * tokens * d * d + 4 * n * tokens * tokens * d;
  };
  return t;
}

ABLATE_LAYER_TYPE(describe);

}  // namespace
}  // namespace ablate::models::layers
