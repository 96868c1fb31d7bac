// ONNX export then import (models/onnx/onnx_export.h, onnx_import.h): a zoo model comes back as
// the same layers (names, types, inputs, shapes and the geometry each layer resolves to) with the
// same weights, bit for bit at float32; and what ONNX cannot express is refused naming the layer.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "graph/static/forward_runner.h"
#include "kernels/registry.h"
#include "models/checked_model.h"
#include "models/layer_params.h"
#include "models/model_spec.h"
#include "models/onnx/onnx_export.h"
#include "models/onnx/onnx_import.h"
#include "models/parameters.h"
#include "models/shape_inference.h"

namespace {

using namespace ablate::models;
using Values = std::map<std::string, GivenValues>;

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "missing '" << (needle) << "' in:\n" << (haystack)

// Every parameter and state tensor of `spec`, each element a different float32 value (variances
// positive), so that a weight put in another tensor's place or order shows.
Values distinct_values(const ModelSpec& spec) {
  std::mt19937_64 gen(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Values v;
  auto fill = [&](const std::string& name, const ablate::kernels::Tensor& t) {
    GivenValues g{t.shape(), std::vector<double>(static_cast<std::size_t>(t.numel()))};
    const bool positive = name.find("var") != std::string::npos || name.find("scale_factor") != std::string::npos;
    for (double& x : g.values) x = static_cast<float>(positive ? 0.5 + std::fabs(u(gen)) : u(gen));
    v[name] = g;
  };
  for (const auto& p : make_initial_parameters(spec, ablate::kernels::DType::f32, 1)) fill(p.name, p.value);
  for (const auto& s : make_initial_state(spec, ablate::kernels::DType::f32)) fill(s.name, s.value);
  return v;
}

// Exported, serialized, parsed and imported again.
onnx_import::ImportResult round_trip(const ModelSpec& spec, const Values& values) {
  const onnx_export::ExportResult exported = onnx_export::export_model(spec, values);
  std::string bytes;
  EXPECT_TRUE(exported.model.SerializeToString(&bytes));
  onnx::ModelProto parsed;
  EXPECT_TRUE(parsed.ParseFromString(bytes));
  return onnx_import::import_model(parsed, spec.name + ".onnx");
}

void expect_same_geometry(const LayerSpec& a, const LayerSpec& b, const LayerShapes& s) {
  const int h = s.input.size() == 4 ? static_cast<int>(s.input[2]) : 1, w = s.input.size() == 4 ? static_cast<int>(s.input[3]) : 1;
  if (a.type == "convolution") {
    const ConvGeometry x = conv_geometry(a, h, w), y = conv_geometry(b, h, w);
    EXPECT_EQ(x.outputs, y.outputs);
    EXPECT_EQ(x.kernel_h, y.kernel_h);
    EXPECT_EQ(x.kernel_w, y.kernel_w);
    EXPECT_EQ(x.params.stride_h, y.params.stride_h);
    EXPECT_EQ(x.params.pad_top, y.params.pad_top);
    EXPECT_EQ(x.params.pad_left, y.params.pad_left);
    EXPECT_EQ(x.params.pad_bottom, y.params.pad_bottom);
    EXPECT_EQ(x.params.pad_right, y.params.pad_right);
    EXPECT_EQ(x.bias, y.bias);
  } else if (a.type == "pooling") {
    const auto x = pool_params(a, h, w), y = pool_params(b, h, w);
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.kernel_h, y.kernel_h);
    EXPECT_EQ(x.stride_h, y.stride_h);
    EXPECT_EQ(x.pad_top, y.pad_top);
    EXPECT_EQ(x.out_h, y.out_h);
    EXPECT_EQ(x.out_w, y.out_w);
    EXPECT_EQ(x.avg_count_padding, y.avg_count_padding);
  } else if (a.type == "batch_norm") {
    const BatchNormParams x = batch_norm_params(a), y = batch_norm_params(b);
    EXPECT_EQ(x.style, y.style);
    EXPECT_EQ(x.affine, y.affine);
    EXPECT_NEAR(x.epsilon, y.epsilon, 1e-6 * x.epsilon);  // a float attribute in ONNX
    EXPECT_NEAR(x.momentum, y.momentum, 1e-6);
  } else if (a.type == "inner_product" || a.type == "linear") {
    EXPECT_EQ(layer_outputs(a), layer_outputs(b));
    EXPECT_EQ(layer_has_bias(a), layer_has_bias(b));
  } else if (a.type == "attention") {
    EXPECT_EQ(attention_heads(a), attention_heads(b));
  } else if (a.type == "layer_norm") {
    EXPECT_NEAR(layer_norm_epsilon(a), layer_norm_epsilon(b), 1e-6 * layer_norm_epsilon(a));  // a float attribute
  }
}

void expect_round_trip(const std::string& zoo_name) {
  SCOPED_TRACE(zoo_name);
  const ModelSpec spec = load_model(zoo_name);
  const Values values = distinct_values(spec);
  const onnx_import::ImportResult back = round_trip(spec, values);

  const CheckedModel a(spec), b(back.spec);
  ASSERT_EQ(a.size(), b.size()) << "the loss is appended again on import";
  EXPECT_EQ(back.spec.input_shape, spec.input_shape);
  EXPECT_EQ(back.spec.classes, spec.classes);
  const auto sa = infer_shapes(a.spec(), 2), sb = infer_shapes(b.spec(), 2);
  for (std::size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE(a.layer(i).name);
    EXPECT_EQ(b.layer(i).name, a.layer(i).name);
    // linear on [N, I] is inner_product's y = x Wᵀ + b (weight [O, I], bias [O]); ONNX's MatMul
    // of a matrix cannot tell them apart, and the importer reads it as inner_product.
    const bool matrix_linear = a.layer(i).type == "linear" && sa[i].input.size() == 2;
    EXPECT_EQ(b.layer(i).type, matrix_linear ? "inner_product" : a.layer(i).type);
    EXPECT_EQ(b.inputs(i), a.inputs(i));
    EXPECT_EQ(sb[i].output, sa[i].output);
    EXPECT_EQ(sb[i].params, sa[i].params);
    EXPECT_EQ(sb[i].param_names, sa[i].param_names);
    ASSERT_EQ(sb[i].state.size(), sa[i].state.size());
    for (std::size_t k = 0; k < sa[i].state.size(); ++k) EXPECT_EQ(sb[i].state[k].suffix, sa[i].state[k].suffix);
    expect_same_geometry(a.layer(i), b.layer(i), sa[i]);
  }
  ASSERT_EQ(back.spec.given.size(), values.size());
  for (const auto& [name, v] : values) {
    SCOPED_TRACE(name);
    auto it = back.spec.given.find(name);
    ASSERT_NE(it, back.spec.given.end());
    EXPECT_EQ(it->second.shape, v.shape);
    EXPECT_EQ(it->second.values, v.values);  // float32 values, exactly
  }
}

// The model without its loss, forward only, with `values` as its weights: the exported graph.
CheckedModel inference(const ModelSpec& spec, const Values& values) {
  const CheckedModel trained(spec);
  ModelSpec m = trained.spec();
  m.layers.resize(static_cast<std::size_t>(trained.input(trained.size() - 1) + 1));
  m.forward_only = true;
  m.given = values;
  return CheckedModel(m);
}

// The largest |a - b| over the outputs of `spec` (with `values`) and its round trip, for one
// input batch of 3, in f64 on the reference backend; `scale` gets the largest |output|.
double round_trip_forward_difference(const ModelSpec& spec, double& scale) {
  const Values values = distinct_values(spec);
  const onnx_import::ImportResult back = round_trip(spec, values);
  ablate::kernels::Shape shape{3};
  for (int d : spec.input_shape) shape.push_back(d);
  ablate::kernels::Tensor x(shape, ablate::kernels::DType::f64);
  std::mt19937_64 gen(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (std::int64_t i = 0; i < x.numel(); ++i) x.data<double>()[i] = u(gen);
  auto backend = ablate::kernels::make_backend("reference", 1);
  ablate::graph::static_graph::ForwardOptions f64;
  f64.dtype = ablate::kernels::DType::f64;
  const auto ya = ablate::graph::static_graph::run_forward(inference(spec, values), *backend, x, f64);
  const auto yb = ablate::graph::static_graph::run_forward(inference(back.spec, back.spec.given), *backend, x, f64);
  EXPECT_EQ(ya.shape(), yb.shape());
  double worst = 0;
  scale = 0;
  for (std::int64_t i = 0; i < ya.numel(); ++i) {
    worst = std::max(worst, std::fabs(ya.data<double>()[i] - yb.data<double>()[i]));
    scale = std::max(scale, std::fabs(ya.data<double>()[i]));
  }
  return worst;
}

ModelSpec model(const std::string& layers) {
  return parse_model("model m\ninput 1 6 6\nclasses 4\n" + layers, "m.model");
}

std::string export_error(const ModelSpec& spec) {
  try {
    onnx_export::export_model(spec, distinct_values(spec));
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  ADD_FAILURE() << "exported without an error";
  return "";
}

}  // namespace

TEST(OnnxExportRoundTrip, LenetComesBackWithTheSameLayersAndWeights) { expect_round_trip("lenet"); }

TEST(OnnxExportRoundTrip, Resnet20ComesBackWithTheSameLayersAndWeights) { expect_round_trip("resnet20"); }

TEST(OnnxExportRoundTrip, VitTinyComesBackWithTheSameLayersAndWeights) { expect_round_trip("vit-tiny"); }

TEST(OnnxExportRoundTrip, VitBlockComesBackWithTheSameLayersAndWeights) {
  expect_round_trip(std::string(ABLATE_SOURCE_DIR) + "/docs/models/vit-block.model");
}

TEST(OnnxExportRoundTrip, TheForwardIsTheSameAfterTheRoundTripInF64) {
  // The same layers on the same float32 weights: equal up to the epsilon of layer_norm and
  // batch_norm, which comes back as its float32 attribute (1e-5 -> 9.99999974737875e-06); lenet
  // has neither and comes back bit for bit.
  for (const std::string& name : {std::string("vit-tiny"), std::string(ABLATE_SOURCE_DIR) + "/docs/models/vit-block.model",
                                  std::string("resnet20"), std::string("lenet")}) {
    SCOPED_TRACE(name);
    double scale = 0;
    const double worst = round_trip_forward_difference(load_model(name), scale);
    std::printf("%s: largest |difference| %.3g, %.3g of the largest output %.3g (f64)\n", name.c_str(), worst,
                worst / scale, scale);
    EXPECT_GT(scale, 1e-3);
    EXPECT_LE(worst, 1e-9 * scale);
    if (name == "lenet") {
      EXPECT_EQ(worst, 0.0);
    }
  }
}

TEST(OnnxExportRoundTrip, TheVitGraphIsOpset17WithTheAttentionSubgraph) {
  const ModelSpec spec = load_model(std::string(ABLATE_SOURCE_DIR) + "/docs/models/vit-block.model");
  const auto r = onnx_export::export_model(spec, distinct_values(spec));
  ASSERT_EQ(r.model.opset_import_size(), 1);
  EXPECT_EQ(r.model.opset_import(0).version(), 17);
  EXPECT_EQ(r.model.ir_version(), 8);
  EXPECT_EQ(r.output, "fc");
  std::map<std::string, int> ops;
  for (const auto& n : r.model.graph().node()) ++ops[n.op_type()];
  // patch Conv; tokens Reshape + Transpose; pos Add; 3 LayerNormalization; attention: 4 projections
  // (MatMul + Add), 3 head Reshapes and Transposes, Q Kᵀ and P V MatMuls, Mul, Softmax, Transpose
  // and Reshape back; fc1, fc2, fc: MatMul + Add; gelu: Div, Erf, Add, Mul, Mul; 2 residual Adds;
  // ReduceMean.
  EXPECT_EQ(ops, (std::map<std::string, int>{{"Add", 1 + 4 + 3 + 1 + 2},
                                              {"Conv", 1},
                                              {"Div", 1},
                                              {"Erf", 1},
                                              {"LayerNormalization", 3},
                                              {"MatMul", 4 + 2 + 3},
                                              {"Mul", 1 + 2},
                                              {"ReduceMean", 1},
                                              {"Reshape", 1 + 3 + 1},
                                              {"Softmax", 1},
                                              {"Transpose", 1 + 3 + 1}}));
}

TEST(OnnxExportRoundTrip, TheGraphIsTheInferenceGraph) {
  const ModelSpec spec = load_model("resnet20");
  const auto r = onnx_export::export_model(spec, distinct_values(spec));
  ASSERT_EQ(r.model.opset_import_size(), 1);
  EXPECT_EQ(r.model.opset_import(0).version(), 13);
  const auto& g = r.model.graph();
  ASSERT_EQ(g.output_size(), 1);
  EXPECT_EQ(g.output(0).name(), "fc");  // the logits: what softmax_loss read
  EXPECT_EQ(r.output, "fc");
  EXPECT_CONTAINS(r.note, "the loss 'loss' (softmax_loss) is not exported");
  std::map<std::string, int> ops;
  for (const auto& n : g.node()) ++ops[n.op_type()];
  EXPECT_EQ(ops, (std::map<std::string, int>{{"Add", 9}, {"BatchNormalization", 21}, {"Conv", 21}, {"Flatten", 1},
                                              {"Gemm", 1}, {"GlobalAveragePool", 1}, {"Relu", 19}}));
  EXPECT_EQ(g.input(0).name(), "data");
  EXPECT_EQ(g.input(0).type().tensor_type().shape().dim(0).dim_param(), "N");
}

TEST(OnnxExportRoundTrip, LogSoftmaxBeforeNllLossIsTheOutputAndDropoutIsOmitted) {
  const ModelSpec spec = model(
      "layer ip1 inner_product outputs=8\nlayer drop dropout keep=0.5\nlayer ip2 inner_product outputs=4\n"
      "layer lsm log_softmax\nlayer loss nll_loss\n");
  const auto r = onnx_export::export_model(spec, distinct_values(spec));
  EXPECT_EQ(r.output, "lsm");
  std::vector<std::string> ops;
  for (const auto& n : r.model.graph().node()) ops.push_back(n.op_type());
  EXPECT_EQ(ops, (std::vector<std::string>{"Flatten", "Gemm", "Gemm", "LogSoftmax"}));
  EXPECT_EQ(r.model.graph().node(2).input(0), "ip1");  // ip2 reads through the dropout
  EXPECT_CONTAINS(r.note, "dropout is omitted");
}

TEST(OnnxExportRoundTrip, AnAverageOverPaddingThatOnnxCannotDivideAlikeIsRefusedNamingTheLayer) {
  // Caffe's ceil rounding: 6 + 2 - 3 = 5 -> ceil(5 / 2) + 1 = 4 windows, the last one reaching past
  // the padding (it divides by the 2 x 3 cells inside [-1, 7), ONNX by 9 or by the real cells).
  const std::string e = export_error(
      model("layer pool1 pooling mode=avg kernel=3 stride=2 pad=1 padding=caffe_ceil\nlayer ip inner_product outputs=4\n"
            "layer loss softmax_loss\n"));
  EXPECT_CONTAINS(e, "layer 'pool1' (pooling)");
  EXPECT_CONTAINS(e, "cannot be exported to ONNX");
  EXPECT_CONTAINS(e, "count_include_pad");
}

TEST(OnnxExportRoundTrip, CeilRoundedPoolingIsExportedWithTheOutputSizeItHas) {
  // Without padding Caffe's ceil rounding is ONNX's ceil_mode (the average over the real cells);
  // with pad 1 and a max, a window of Caffe's ceil that ONNX's floor misses on H only.
  const ModelSpec avg = model("layer p pooling mode=avg kernel=3 stride=2 padding=caffe_ceil\nlayer ip inner_product outputs=4\n"
                              "layer loss softmax_loss\n");
  const onnx_export::ExportResult r = onnx_export::export_model(avg, distinct_values(avg));
  const auto& n = r.model.graph().node(0);
  std::map<std::string, std::int64_t> ints;
  for (const auto& a : n.attribute()) ints[a.name()] = a.i();
  EXPECT_EQ(n.op_type(), "AveragePool");
  EXPECT_EQ(ints["ceil_mode"], 1);
  EXPECT_EQ(ints["count_include_pad"], 0);
  const onnx_import::ImportResult back = round_trip(avg, distinct_values(avg));
  EXPECT_EQ(infer_shapes(back.spec, 1)[0].output, infer_shapes(avg, 1)[0].output);
}

TEST(OnnxExportRoundTrip, MissingOrMisshapenWeightsAreErrorsNamingTheTensor) {
  const ModelSpec spec = load_model("lenet");
  Values values = distinct_values(spec);
  values.erase("conv2.bias");
  try {
    onnx_export::export_model(spec, values);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_CONTAINS(e.what(), "layer 'conv2' (convolution)");
    EXPECT_CONTAINS(e.what(), "no value for its tensor 'conv2.bias'");
  }
  values = distinct_values(spec);
  values["ip1.weight"].shape = {800, 500};
  try {
    onnx_export::export_model(spec, values);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_CONTAINS(e.what(), "tensor 'ip1.weight' is [800, 500], expected [500, 800]");
  }
}

TEST(OnnxExportRoundTrip, AModelWithoutALossIsRefused) {
  ModelSpec spec = model("layer ip inner_product outputs=4\nlayer loss softmax_loss\n");
  spec.layers.pop_back();  // a forward-only model (an imported operator test): no loss to drop
  spec.forward_only = true;
  const std::string e = export_error(spec);
  EXPECT_CONTAINS(e, "layer 'ip'");
  EXPECT_CONTAINS(e, "the last layer is no loss");
}

