// ONNX export of the token and attention layers (a Vision Transformer's), each in the form
// torch.onnx writes the PyTorch module and the importer reads back (docs/onnx.md):
//   tokens      Reshape [N, C, H, W] -> [-1, C, H·W], Transpose perm [0, 2, 1]  ([N, H·W, C])
//   pos_embed   Add of the constant <layer>.weight as [1, T, D]
//   layer_norm  LayerNormalization (opset 17) axis -1, epsilon eps, Scale <layer>.weight,
//               B <layer>.bias
//   linear      MatMul by the constant Wᵀ [I, O] (<layer>.weight_t), then Add of
//               <layer>.bias [O] (without a bias: the MatMul alone); any rank [N, ..., I]
//   token_mean  ReduceMean axes [1] keepdims 0: [N, T, D] -> [N, D]
//   attention   multi-head self-attention over x [N, T, D], heads h, dh = D / h:
//                 q, k, v = Add(MatMul(x, Wᵀ), b)                   one per projection
//                 heads(t) = Transpose(Reshape(t, [-1, T, h, dh]), perm [0, 2, 1, 3])
//                 kᵀ = Transpose(Reshape(k, [-1, T, h, dh]), perm [0, 2, 3, 1])
//                 p = Softmax(Mul(MatMul(heads(q), kᵀ), 1/√dh), axis -1)
//                 y = Add(MatMul(Reshape(Transpose(MatMul(p, heads(v)), [0, 2, 1, 3]), [-1, T, D]), Woᵀ), bo)
//               every node named "<layer>/...", so the importer's attention pattern
//               (patterns/attention_pattern.cpp) names the layer it fuses them into alike.
// gelu's erf form (onnx_export.cpp) is what the importer's GELU pattern reads at opset 17.
#include <cmath>

#include "models/layer_params.h"
#include "models/onnx/export_graph.h"

namespace ablate::models::onnx_export {
namespace {

// A matrix [R, C] as its transpose [C, R] (a weight [O, I] as MatMul's B [I, O]).
GivenValues transposed(const GivenValues& m) {
  const std::int64_t rows = m.shape.at(0), cols = m.shape.at(1);
  GivenValues t{{cols, rows}, std::vector<double>(m.values.size())};
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t k = 0; k < cols; ++k)
      t.values[static_cast<std::size_t>(k * rows + r)] = m.values[static_cast<std::size_t>(r * cols + k)];
  return t;
}

const Dims& param_shape(const LayerContext& c, const std::string& suffix) {
  for (std::size_t i = 0; i < c.shapes.param_names.size(); ++i)
    if (c.shapes.param_names[i] == suffix) return c.shapes.params[i];
  c.layer.fail("has no parameter '" + suffix + "'");
}

// y = x Wᵀ (+ b): MatMul by the constant "<layer>.<weight>_t" (the weight [O, I] transposed to
// [I, O]), then Add of the bias; the MatMul's node is named `node_prefix` + `node`, the Add the
// same + "/Add", and the last one's output is `output`.
std::string projection(LayerContext& c, const std::string& x, const std::string& weight, const std::string& bias,
                       const std::string& node, const std::string& output, const std::string& node_prefix = "") {
  auto& g = c.graph;
  const std::string w = c.name() + "." + weight;
  const GivenValues wt = transposed(g.value(w, param_shape(c, weight), c.layer));
  g.initializer(w + "_t", wt);
  const std::string product = bias.empty() ? output : node_prefix + node + "/MatMul";
  g.node("MatMul", node_prefix + node, {x, w + "_t"}, product);
  if (bias.empty()) return output;
  g.node("Add", node_prefix + node + "/Add", {product, c.param(bias)}, output);
  return output;
}

std::string tokens(LayerContext& c) {
  const std::string n = c.name();
  const std::string shape = c.graph.int64s(n + "/shape", {-1, c.in()[1], c.in()[2] * c.in()[3]});
  c.graph.node("Reshape", n + "/Reshape", {c.x(), shape}, n + "/Reshape");
  attribute(c.graph.node("Transpose", n, {n + "/Reshape"}, n), "perm", std::vector<std::int64_t>{0, 2, 1});
  return n;
}

std::string pos_embed(LayerContext& c) {
  const std::string tensor = c.name() + ".weight";
  GivenValues w = c.graph.value(tensor, param_shape(c, "weight"), c.layer);
  w.shape.insert(w.shape.begin(), 1);  // [1, T, D], broadcast over the batch
  c.graph.initializer(tensor, w);
  c.graph.node("Add", c.name(), {c.x(), tensor}, c.name());
  return c.name();
}

std::string layer_norm(LayerContext& c) {
  c.graph.require_opset(17);
  onnx::NodeProto& n = c.graph.node("LayerNormalization", c.name(), {c.x(), c.param("weight"), c.param("bias")}, c.name());
  attribute(n, "axis", std::int64_t{-1});
  float_attribute(n, "epsilon", layer_norm_epsilon(c.layer));
  return c.name();
}

std::string linear(LayerContext& c) {
  return projection(c, c.x(), "weight", c.has_param("bias") ? "bias" : "", c.name(), c.name());
}

std::string token_mean(LayerContext& c) {
  onnx::NodeProto& n = c.graph.node("ReduceMean", c.name(), {c.x()}, c.name());
  attribute(n, "axes", std::vector<std::int64_t>{1});
  attribute(n, "keepdims", std::int64_t{0});
  return c.name();
}

std::string attention(LayerContext& c) {
  auto& g = c.graph;
  const std::string n = c.name(), x = c.x();
  const std::int64_t t = c.in()[1], d = c.in()[2], h = attention_heads(c.layer), dh = d / h;
  const std::string split = g.int64s(n + "/heads_shape", {-1, t, h, dh});
  // The projection `role` of x, split into heads and transposed by `perm`.
  auto heads = [&](const std::string& role, const std::vector<std::int64_t>& perm) {
    const std::string p = n + "/" + role;
    projection(c, x, role + "_weight", role + "_bias", role, p, n + "/");
    g.node("Reshape", p + "/Reshape", {p, split}, p + "/Reshape");
    attribute(g.node("Transpose", p + "/Transpose", {p + "/Reshape"}, p + "/Transpose"), "perm", perm);
    return p + "/Transpose";
  };
  const std::string q = heads("query", {0, 2, 1, 3}), k = heads("key", {0, 2, 3, 1}), v = heads("value", {0, 2, 1, 3});
  g.node("MatMul", n + "/scores/MatMul", {q, k}, n + "/scores");
  g.node("Mul", n + "/scores/Mul", {n + "/scores", g.scalar(n + "/scale", 1.0 / std::sqrt(static_cast<double>(dh)))},
         n + "/scaled");
  attribute(g.node("Softmax", n + "/Softmax", {n + "/scaled"}, n + "/weights"), "axis", std::int64_t{-1});
  g.node("MatMul", n + "/context/MatMul", {n + "/weights", v}, n + "/context");
  attribute(g.node("Transpose", n + "/context/Transpose", {n + "/context"}, n + "/context/Transpose"), "perm",
            std::vector<std::int64_t>{0, 2, 1, 3});
  g.node("Reshape", n + "/context/Reshape", {n + "/context/Transpose", g.int64s(n + "/joined_shape", {-1, t, d})},
         n + "/joined");
  return projection(c, n + "/joined", "out_weight", "out_bias", "out", n, n + "/");
}

}  // namespace

const std::map<std::string, LayerWriter>& token_writers() {
  static const std::map<std::string, LayerWriter> table{
      {"tokens", tokens},   {"pos_embed", pos_embed},   {"layer_norm", layer_norm},
      {"linear", linear},   {"token_mean", token_mean}, {"attention", attention},
  };
  return table;
}

}  // namespace ablate::models::onnx_export
