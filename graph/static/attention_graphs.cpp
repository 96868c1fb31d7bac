// The static graph of a Vision Transformer's layer types, as a TensorFlow 1.x script
// writes them (tf.reshape, tf.transpose, tf.matmul of rank 3, tf.nn.softmax, a layer-norm op):
//   linear      reshape to [R, I], linear (+ bias_add), reshape back (tf.layers.dense on rank 3)
//   tokens      reshape [N, C, H*W], permute (0, 2, 1)
//   pos_embed   reshape to [N, T*D], bias_add of the weight reshaped to [T*D], reshape back
//   token_mean  reshape to [N, 1, T, D], pool2d of one T x 1 window, reshape to [N, D]
//   layer_norm  layer_norm (gradient: one layer_norm_grad)
//   attention   from its parts: three linears over [R, D] (each with its bias as an input),
//               reshape and permute heads apart, batched_matmul q k^T, softmax_last, in training
//               with keep < 1 a mul by a dropout_mask [N, H, T, T] (reshaped to [N H, T, T]),
//               batched_matmul p v, permute and reshape back, the output linear
// The reshapes are copies here (the graph has no aliasing views); the passes and the memory plan
// treat them as any op. Parameters are made in the order models::make_initial_parameters gives.
#include <cmath>
#include <string>

#include "graph/static/model_builder.h"
#include "models/layer_params.h"

namespace ablate::graph::static_graph {
namespace {

using models::LayerSpec;
using models::LayerType;

Value reshaped(ModelGraphBuilder& b, const LayerSpec& l, Value x, kernels::Shape shape, const std::string& suffix) {
  Attrs a;
  a.shape = std::move(shape);
  return b.op(OpKind::reshape, l, {x}, a, suffix.c_str());
}

Value permuted(ModelGraphBuilder& b, const LayerSpec& l, Value x, std::vector<int> perm, const std::string& suffix) {
  Attrs a;
  a.perm = std::move(perm);
  return b.op(OpKind::permute, l, {x}, a, suffix.c_str());
}

Value linear(ModelGraphBuilder& b, const LayerSpec& l, const LayerType&, const std::vector<Value>& xs) {
  const kernels::Shape in = b.shape(xs[0]);
  const std::int64_t features = in.back(), outputs = models::layer_outputs(l);
  Value w = b.parameter(l, "weight", {outputs, features});
  if (in.size() == 2) return b.with_bias(l, b.op(OpKind::linear, l, {xs[0], w}), models::layer_has_bias(l));
  const Value rows = reshaped(b, l, xs[0], {kernels::shape_numel(in) / features, features}, "rows");
  const Value y = b.with_bias(l, b.op(OpKind::linear, l, {rows, w}), models::layer_has_bias(l));
  kernels::Shape out = in;
  out.back() = outputs;
  return reshaped(b, l, y, out, "reshape");
}

Value tokens(ModelGraphBuilder& b, const LayerSpec& l, const LayerType&, const std::vector<Value>& xs) {
  const kernels::Shape in = b.shape(xs[0]);
  return permuted(b, l, reshaped(b, l, xs[0], {in[0], in[1], in[2] * in[3]}, "planes"), {0, 2, 1}, "permute");
}

Value pos_embed(ModelGraphBuilder& b, const LayerSpec& l, const LayerType&, const std::vector<Value>& xs) {
  const kernels::Shape in = b.shape(xs[0]);
  const Value w = b.parameter(l, "weight", {in[1], in[2]});
  const Value flat = reshaped(b, l, xs[0], {in[0], in[1] * in[2]}, "samples");
  const Value y = b.op(OpKind::bias_add, l, {flat, reshaped(b, l, w, {in[1] * in[2]}, "weight_flat")});
  return reshaped(b, l, y, in, "reshape");
}

Value token_mean(ModelGraphBuilder& b, const LayerSpec& l, const LayerType&, const std::vector<Value>& xs) {
  const kernels::Shape in = b.shape(xs[0]);
  Attrs a;
  a.pool = models::token_mean_pool_params(in[1], in[2]);
  const Value pooled = b.op(OpKind::pool2d, l, {reshaped(b, l, xs[0], {in[0], 1, in[1], in[2]}, "plane")}, a);
  return reshaped(b, l, pooled, {in[0], in[2]}, "reshape");
}

Value layer_norm(ModelGraphBuilder& b, const LayerSpec& l, const LayerType&, const std::vector<Value>& xs) {
  const std::int64_t d = b.shape(xs[0]).back();
  Attrs a;
  a.alpha = models::layer_norm_epsilon(l);
  const Value w = b.parameter(l, "weight", {d}), bias = b.parameter(l, "bias", {d});
  return b.op(OpKind::layer_norm, l, {xs[0], w, bias}, a);
}

Value attention(ModelGraphBuilder& b, const LayerSpec& l, const LayerType&, const std::vector<Value>& xs) {
  const kernels::Shape in = b.shape(xs[0]);
  const std::int64_t n = in[0], t = in[1], d = in[2], heads = models::attention_heads(l), dh = d / heads;
  const std::vector<std::string>& suffixes = models::attention_parameter_suffixes();
  const Value rows = reshaped(b, l, xs[0], {n * t, d}, "rows");
  // Projection k (0 query, 1 key, 2 value, 3 out) of r [R, D]: its linear with the bias as an input.
  auto project = [&](int k, Value r) {
    const std::string name = suffixes[static_cast<std::size_t>(2 * k)].substr(0, suffixes[2 * k].find('_'));
    const Value w = b.parameter(l, suffixes[static_cast<std::size_t>(2 * k)].c_str(), {d, d});
    const Value bias = b.parameter(l, suffixes[static_cast<std::size_t>(2 * k + 1)].c_str(), {d});
    return std::make_pair(b.op(OpKind::linear, l, {r, w, bias}, {}, name.c_str()), name);
  };
  auto apart = [&](int k) {
    const auto [p, name] = project(k, rows);
    const Value split = reshaped(b, l, p, {n, t, heads, dh}, name + "_split");
    return reshaped(b, l, permuted(b, l, split, {0, 2, 1, 3}, name + "_heads"), {n * heads, t, dh}, name + "_batches");
  };
  const Value q = apart(0), k = apart(1), v = apart(2);
  Attrs qk;
  qk.trans_b = true;
  const Value scores = b.op(OpKind::batched_matmul, l, {q, k}, qk, "scores");
  Attrs soft;
  soft.alpha = 1.0 / std::sqrt(static_cast<double>(dh));
  Value p = b.op(OpKind::softmax_last, l, {scores}, soft, "softmax");
  const double keep = models::attention_keep(l);
  if (b.phase() == Phase::train && keep < 1) {  // dropout on the weights: p * mask, the mask [N, H, T, T]
    Attrs m;
    m.shape = {n, heads, t, t};
    m.dtype = b.graph().dtype();
    m.alpha = keep;
    m.key = models::attention_dropout_key(l);
    const Value mask = b.graph().out(b.graph().add(OpKind::dropout_mask, l.name + "/weights_mask", {}, m));
    p = b.op(OpKind::mul, l, {p, reshaped(b, l, mask, {n * heads, t, t}, "weights_mask_batches")}, {}, "weights_dropout");
  }
  const Value oh = b.op(OpKind::batched_matmul, l, {p, v}, {}, "context");
  const Value o = permuted(b, l, reshaped(b, l, oh, {n, heads, t, dh}, "context_heads"), {0, 2, 1, 3}, "merge");
  const Value y = project(3, reshaped(b, l, o, {n * t, d}, "context_rows")).first;
  return reshaped(b, l, y, in, "reshape");
}

}  // namespace

ABLATE_STATIC_LAYER(linear, linear);
ABLATE_STATIC_LAYER(tokens, tokens);
ABLATE_STATIC_LAYER(pos_embed, pos_embed);
ABLATE_STATIC_LAYER(token_mean, token_mean);
ABLATE_STATIC_LAYER(layer_norm, layer_norm);
ABLATE_STATIC_LAYER(attention, attention);

}  // namespace ablate::graph::static_graph
