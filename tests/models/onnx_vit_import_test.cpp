// ONNX import of a Vision Transformer as torch.onnx (opset 17) writes one: graphs built here in
// the exporter's form (Reshape and Transpose to tokens, an Add of the position embedding,
// LayerNormalization, Linear as Transpose(W) + MatMul + Add, multi-head attention as MatMul,
// Reshape, Transpose, Div, Softmax, GELU as Div, Erf, Add, Mul, Mul, ReduceMean) import to
// ablate's tokens, pos_embed, layer_norm, linear, attention, gelu and token_mean layers with the
// file's weights; a departure from the attention or GELU forms is an error naming the node.
// (The PyTorch-exported file itself: tests/peers/test_onnx_vit_curve.py.)
#include <gtest/gtest.h>

#include <cmath>

#include "models/onnx/onnx_import.h"
#include "tests/models/error_expectations.h"
#include "tests/models/onnx_net.h"

namespace ablate::models {
namespace {

using testing::expect_error;
using testing::OnnxNet;

constexpr std::int64_t kTokens = 4, kWidth = 4, kHeads = 2, kMlp = 6;

struct VitOptions {
  double score_scale = std::sqrt(2.0);  // dh = 2: the Div by √dh
  bool scale_by_mul = false;
  bool cross_attention = false;        // K and V from the block input instead of the normed one
  bool erf_alone = false;              // the GELU without its last Mul by 0.5
  bool decomposed_norm = false;        // the final layer norm as torch.onnx writes it below opset 17
};

// A Linear on tokens as torch.onnx writes it: Transpose(W [O, I]), MatMul, Add(b, .).
struct Linear {
  std::vector<double> weight, bias;
  std::string output;
};

Linear linear(OnnxNet& net, const std::string& prefix, const std::string& x, std::int64_t in, std::int64_t out, double start) {
  Linear l;
  l.weight = net.weight(prefix + ".weight", {out, in}, start);
  l.bias = net.weight(prefix + ".bias", {out}, start / 2);
  auto* t = net.node("Transpose", "/" + prefix + "/Transpose", {prefix + ".weight"}, {"/" + prefix + "/Transpose_output_0"});
  OnnxNet::ints(t, "perm", {1, 0});
  net.node("MatMul", "/" + prefix + "/MatMul", {x, "/" + prefix + "/Transpose_output_0"}, {"/" + prefix + "/MatMul_output_0"});
  l.output = "/" + prefix + "/Add_output_0";
  net.node("Add", "/" + prefix + "/Add", {prefix + ".bias", "/" + prefix + "/MatMul_output_0"}, {l.output});
  return l;
}

std::string heads(OnnxNet& net, const std::string& name, const std::string& x, std::vector<std::int64_t> perm) {
  net.constant(name + "_shape", {4}, {-1, kTokens, kHeads, kWidth / kHeads}, true);
  net.node("Reshape", "/attn/" + name + "/Reshape", {x, name + "_shape"}, {name + "_r"});
  auto* t = net.node("Transpose", "/attn/" + name + "/Transpose", {name + "_r"}, {name + "_h"});
  OnnxNet::ints(t, "perm", perm);
  return name + "_h";
}

// ReduceMean, Sub, Pow, ReduceMean, Add eps, Sqrt, Div, Mul scale, Add bias (opsets below 17).
std::string decomposed_layer_norm(OnnxNet& net, const std::string& name, const std::string& x) {
  const std::string p = "/" + name + "/";
  auto* mean = net.node("ReduceMean", p + "ReduceMean", {x}, {p + "mean"});
  OnnxNet::ints(mean, "axes", {-1});
  net.node("Sub", p + "Sub", {x, p + "mean"}, {p + "d"});
  net.constant(p + "two", {}, {2.0});
  net.node("Pow", p + "Pow", {p + "d", p + "two"}, {p + "d2"});
  auto* var = net.node("ReduceMean", p + "ReduceMean_1", {p + "d2"}, {p + "var"});
  OnnxNet::ints(var, "axes", {-1});
  net.constant(p + "eps", {}, {1e-5});
  net.node("Add", p + "Add", {p + "var", p + "eps"}, {p + "ve"});
  net.node("Sqrt", p + "Sqrt", {p + "ve"}, {p + "sd"});
  net.node("Div", p + "Div", {p + "d", p + "sd"}, {p + "y"});
  net.node("Mul", p + "Mul", {p + "y", name + ".weight"}, {p + "ys"});
  net.node("Add", p + "Add_1", {p + "ys", name + ".bias"}, {p + "out"});
  return p + "out";
}

std::string layer_norm(OnnxNet& net, const std::string& name, const std::string& x, bool decomposed = false) {
  net.weight(name + ".weight", {kWidth}, 1.0);
  net.weight(name + ".bias", {kWidth}, -0.02);
  if (decomposed) return decomposed_layer_norm(net, name, x);
  auto* n = net.node("LayerNormalization", "/" + name + "/LayerNormalization", {x, name + ".weight", name + ".bias"},
                     {"/" + name + "/out"});
  OnnxNet::integer(n, "axis", -1);
  OnnxNet::real(n, "epsilon", 1e-5f);
  return "/" + name + "/out";
}

// input [N, 1, 4, 4] -> Conv 2x2 stride 2, 4 outputs -> 4 tokens of width 4 -> + pos -> one
// pre-norm block (2 heads of 2, MLP 6) -> norm -> mean of the tokens -> Gemm to 3 classes
struct TinyVit {
  OnnxNet net{17};
  std::vector<double> pos;
  Linear q, k, v, out, fc1, fc2;

  explicit TinyVit(const VitOptions& o = {}) {
    net.input("input", {-1, 1, 4, 4});
    net.weight("patch.weight", {kWidth, 1, 2, 2});
    net.weight("patch.bias", {kWidth}, 0.01);
    auto* conv = net.node("Conv", "/patch/Conv", {"input", "patch.weight", "patch.bias"}, {"conv"});
    OnnxNet::ints(conv, "kernel_shape", {2, 2});
    OnnxNet::ints(conv, "strides", {2, 2});
    net.constant("flat_shape", {3}, {-1, kWidth, kTokens}, true);
    net.node("Reshape", "/Reshape", {"conv", "flat_shape"}, {"flat"});
    auto* t = net.node("Transpose", "/Transpose", {"flat"}, {"tok"});
    OnnxNet::ints(t, "perm", {0, 2, 1});
    pos = net.weight("pos", {1, kTokens, kWidth}, -0.05);
    net.node("Add", "/Add", {"tok", "pos"}, {"x0"});
    const std::string n1 = layer_norm(net, "norm1", "x0");
    q = linear(net, "attn/query", n1, kWidth, kWidth, 0.1);
    k = linear(net, "attn/key", o.cross_attention ? "x0" : n1, kWidth, kWidth, 0.2);
    v = linear(net, "attn/value", n1, kWidth, kWidth, 0.3);
    const std::string qh = heads(net, "q", q.output, {0, 2, 1, 3});
    const std::string kt = heads(net, "k", k.output, {0, 2, 3, 1});
    const std::string vh = heads(net, "v", v.output, {0, 2, 1, 3});
    net.node("MatMul", "/attn/MatMul", {qh, kt}, {"scores"});
    net.constant("scale", {}, {o.scale_by_mul ? 1 / o.score_scale : o.score_scale});
    net.node(o.scale_by_mul ? "Mul" : "Div", o.scale_by_mul ? "/attn/Mul" : "/attn/Div", {"scores", "scale"}, {"scaled"});
    auto* sm = net.node("Softmax", "/attn/Softmax", {"scaled"}, {"p"});
    OnnxNet::integer(sm, "axis", -1);
    net.node("MatMul", "/attn/MatMul_1", {"p", vh}, {"pv"});
    auto* back = net.node("Transpose", "/attn/Transpose_3", {"pv"}, {"pv_t"});
    OnnxNet::ints(back, "perm", {0, 2, 1, 3});
    net.constant("join_shape", {3}, {-1, kTokens, kWidth}, true);
    net.node("Reshape", "/attn/Reshape_3", {"pv_t", "join_shape"}, {"joined"});
    out = linear(net, "attn/out", "joined", kWidth, kWidth, 0.4);
    net.node("Add", "/res1", {"x0", out.output}, {"x1"});
    const std::string n2 = layer_norm(net, "norm2", "x1");
    fc1 = linear(net, "fc1", n2, kWidth, kMlp, 0.5);
    net.constant("sqrt2", {}, {std::sqrt(2.0)});  // float32: 1.41421354, as torch.onnx writes it
    net.node("Div", "/gelu/Div", {fc1.output, "sqrt2"}, {"g_div"});
    net.node("Erf", "/gelu/Erf", {"g_div"}, {"g_erf"});
    net.constant("one", {}, {1.0});
    net.node("Add", "/gelu/Add", {"g_erf", "one"}, {"g_add"});
    net.node("Mul", "/gelu/Mul", {fc1.output, "g_add"}, {o.erf_alone ? "g_out" : "g_mul"});
    if (!o.erf_alone) {
      net.constant("half", {}, {0.5});
      net.node("Mul", "/gelu/Mul_1", {"g_mul", "half"}, {"g_out"});
    }
    fc2 = linear(net, "fc2", "g_out", kMlp, kWidth, 0.6);
    net.node("Add", "/res2", {"x1", fc2.output}, {"x2"});
    const std::string n3 = layer_norm(net, "norm", "x2", o.decomposed_norm);
    auto* mean = net.node("ReduceMean", "/ReduceMean", {n3}, {"pooled"});
    OnnxNet::ints(mean, "axes", {1});
    OnnxNet::integer(mean, "keepdims", 0);
    net.weight("fc.weight", {3, kWidth}, -0.1);
    net.weight("fc.bias", {3}, 0.2);
    auto* fc = net.node("Gemm", "/fc/Gemm", {"pooled", "fc.weight", "fc.bias"}, {"logits"});
    OnnxNet::integer(fc, "transB", 1);
    net.output("logits");
  }
};

TEST(OnnxVitImport, TorchsFormImportsToAblatesTransformerLayers) {
  TinyVit vit;
  const ModelSpec spec = onnx_import::import_model(vit.net.model, "vit.onnx").spec;
  std::vector<std::pair<std::string, std::string>> layers;
  for (const auto& l : spec.layers) layers.emplace_back(l.name, l.type);
  const std::vector<std::pair<std::string, std::string>> expected{
      {"patch_Conv", "convolution"}, {"Transpose", "tokens"},  {"Add", "pos_embed"},
      {"norm1_LayerNormalization", "layer_norm"},                 {"attn", "attention"},
      {"res1", "add"},               {"norm2_LayerNormalization", "layer_norm"},
      {"fc1_MatMul", "linear"},      {"gelu", "gelu"},           {"fc2_MatMul", "linear"},
      {"res2", "add"},               {"norm_LayerNormalization", "layer_norm"},
      {"ReduceMean", "token_mean"},  {"fc_Gemm", "inner_product"}, {"loss", "softmax_loss"}};
  EXPECT_EQ(layers, expected);
  auto layer = [&](const std::string& name) -> const LayerSpec& {
    for (const auto& l : spec.layers)
      if (l.name == name) return l;
    throw std::logic_error("no layer " + name);
  };
  EXPECT_EQ(layer("attn").params.at("heads"), "2");
  EXPECT_EQ(layer("attn").inputs, std::vector<std::string>{"norm1_LayerNormalization"});
  EXPECT_EQ(layer("res1").inputs, (std::vector<std::string>{"Add", "attn"}));
  EXPECT_EQ(layer("gelu").params.count("approximate"), 0u);  // the exact erf form
  EXPECT_EQ(layer("fc1_MatMul").params.count("bias"), 0u);   // the Add folded in
  EXPECT_EQ(layer("norm1_LayerNormalization").params.at("eps"), "9.9999997473787516e-06");  // 1e-5 as float32
  // Weights as ablate holds them: [out, in] as the file's W (the Transpose undone), biases [D].
  const auto& g = spec.given;
  EXPECT_EQ(g.at("attn.query_weight").shape, (std::vector<std::int64_t>{kWidth, kWidth}));
  EXPECT_EQ(g.at("attn.query_weight").values, vit.q.weight);
  EXPECT_EQ(g.at("attn.key_weight").values, vit.k.weight);
  EXPECT_EQ(g.at("attn.value_bias").values, vit.v.bias);
  EXPECT_EQ(g.at("attn.out_weight").values, vit.out.weight);
  EXPECT_EQ(g.at("attn.out_bias").values, vit.out.bias);
  EXPECT_EQ(g.at("fc1_MatMul.weight").shape, (std::vector<std::int64_t>{kMlp, kWidth}));
  EXPECT_EQ(g.at("fc1_MatMul.weight").values, vit.fc1.weight);
  EXPECT_EQ(g.at("fc2_MatMul.bias").values, vit.fc2.bias);
  EXPECT_EQ(g.at("Add.weight").shape, (std::vector<std::int64_t>{kTokens, kWidth}));
  EXPECT_EQ(g.at("Add.weight").values, vit.pos);
}

TEST(OnnxVitImport, AScaleByMulOfOneOverRootDhIsTheSameAttention) {
  VitOptions o;
  o.scale_by_mul = true;
  TinyVit vit(o);
  const ModelSpec spec = onnx_import::import_model(vit.net.model, "vit.onnx").spec;
  EXPECT_EQ(spec.layers.at(4).type, "attention");
}

TEST(OnnxVitImport, TheDecomposedLayerNormOfOpsetsBelow17IsOneLayerNorm) {
  VitOptions o;
  o.decomposed_norm = true;
  TinyVit vit(o);
  const ModelSpec spec = onnx_import::import_model(vit.net.model, "vit.onnx").spec;
  ASSERT_EQ(spec.layers.size(), 15u);
  const LayerSpec& norm = spec.layers.at(11);
  EXPECT_EQ(norm.name, "norm");
  EXPECT_EQ(norm.type, "layer_norm");
  EXPECT_EQ(norm.params.at("eps"), "9.9999997473787516e-06");
  EXPECT_EQ(norm.inputs, std::vector<std::string>{"res2"});
  EXPECT_EQ(spec.given.at("norm.weight").shape, std::vector<std::int64_t>{kWidth});
  EXPECT_EQ(spec.given.at("norm.bias").values.at(0), static_cast<double>(-0.02f));
  EXPECT_EQ(spec.layers.at(12).type, "token_mean");
}

TEST(OnnxVitImport, AnotherScoreScaleIsAnErrorNamingTheNode) {
  VitOptions o;
  o.score_scale = 3.0;
  TinyVit vit(o);
  expect_error([&] { onnx_import::import_model(vit.net.model, "vit.onnx"); },
               {"vit.onnx", "node '/attn/Div' (Div)", "divides the scores by 3", "1/√dh", "'/attn/Softmax' (Softmax)"});
}

TEST(OnnxVitImport, CrossAttentionIsAnErrorNamingTheProjection) {
  VitOptions o;
  o.cross_attention = true;
  TinyVit vit(o);
  expect_error([&] { onnx_import::import_model(vit.net.model, "vit.onnx"); },
               {"vit.onnx", "node '/attn/key/MatMul' (MatMul)", "self-attention"});
}

TEST(OnnxVitImport, AnErfOutsideGelusFormIsAnUnsupportedNode) {
  VitOptions o;
  o.erf_alone = true;
  TinyVit vit(o);
  expect_error([&] { onnx_import::import_model(vit.net.model, "vit.onnx"); },
               {"vit.onnx", "node '/gelu/Div' (Div)", "op type 'Div' is not supported", "GELU's erf form"});
}

TEST(OnnxVitImport, AnUnrecognisedTransposeOfTokensNamesTheNode) {
  OnnxNet net(17);
  net.input("x", {-1, 2, 3, 3});
  net.constant("s", {3}, {-1, 2, 9}, true);
  net.node("Reshape", "r", {"x", "s"}, {"flat"});
  auto* t = net.node("Transpose", "swap", {"flat"}, {"y"});
  OnnxNet::ints(t, "perm", {2, 1, 0});
  net.output("y");
  expect_error([&] { onnx_import::import_model(net.model, "t.onnx"); },
               {"t.onnx", "node 'swap' (Transpose)", "perm", "[2, 1, 0]", "is not supported"});
}

}  // namespace
}  // namespace ablate::models
