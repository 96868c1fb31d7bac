// ONNX import (models/onnx/): models written here with libonnx's protobuf classes import to
// the ModelSpec and given values they must, and broken files and unsupported nodes give errors
// naming the file, the node, its op type and the attribute at fault.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <onnx/onnx_pb.h>

#include "models/checked_model.h"
#include "models/onnx/onnx_import.h"
#include "models/parameters.h"
#include "tests/models/error_expectations.h"
#include "tests/models/onnx_net.h"
#include "tests/process_scratch.h"

namespace ablate::models {
namespace {

using testing::expect_error;
using testing::OnnxNet;

// conv(no bias) -> bn -> relu -> conv(bias) -> add(relu, conv) -> gap -> flatten -> gemm
struct ResidualNet {
  OnnxNet net;
  std::vector<double> w1, bn_scale, bn_b, bn_mean, bn_var, w2, b2, fc_w, fc_b;
  ResidualNet() {
    net.input("image", {-1, 3, 8, 8});
    w1 = net.weight("w1", {4, 3, 3, 3});
    auto* c1 = net.node("Conv", "/stem/conv1/Conv", {"image", "w1"}, {"c1"});
    OnnxNet::ints(c1, "kernel_shape", {3, 3});
    OnnxNet::ints(c1, "pads", {1, 1, 1, 1});
    OnnxNet::ints(c1, "strides", {1, 1});
    bn_scale = net.weight("bn.s", {4}, 1.0);
    bn_b = net.weight("bn.b", {4}, -0.2);
    bn_mean = net.weight("bn.m", {4}, 0.05);
    bn_var = net.weight("bn.v", {4}, 0.5);
    auto* bn = net.node("BatchNormalization", "bn1", {"c1", "bn.s", "bn.b", "bn.m", "bn.v"}, {"b1"});
    OnnxNet::real(bn, "epsilon", 1e-3f);
    OnnxNet::real(bn, "momentum", 0.9f);
    net.node("Relu", "relu1", {"b1"}, {"r1"});
    w2 = net.weight("w2", {4, 4, 3, 3}, -0.3);
    b2 = net.weight("b2", {4}, 0.02);
    auto* c2 = net.node("Conv", "conv2", {"r1", "w2", "b2"}, {"c2"});
    OnnxNet::ints(c2, "pads", {1, 1, 1, 1});
    net.node("Add", "res", {"r1", "c2"}, {"s"});
    net.node("GlobalAveragePool", "gap", {"s"}, {"g"});
    net.node("Flatten", "flat", {"g"}, {"f"});
    fc_w = net.weight("fc.w", {5, 4}, -0.1);
    fc_b = net.weight("fc.b", {5}, 0.3);
    auto* fc = net.node("Gemm", "fc", {"f", "fc.w", "fc.b"}, {"logits"});
    OnnxNet::integer(fc, "transB", 1);
    net.output("logits");
  }
};

std::filesystem::path temp_file(const std::string& name, const std::string& bytes) {
  const auto path = ablate::testing::process_scratch() / name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

void expect_given(const ModelSpec& spec, const std::string& name, const std::vector<std::int64_t>& shape,
                  const std::vector<double>& values) {
  ASSERT_TRUE(spec.given.count(name)) << name;
  EXPECT_EQ(spec.given.at(name).shape, shape) << name;
  EXPECT_EQ(spec.given.at(name).values, values) << name;
}

TEST(OnnxImport, ResidualNetImportsToTheExpectedSpecAndGivenValues) {
  ResidualNet r;
  const onnx_import::ImportResult result = onnx_import::import_model(r.net.model, "net.onnx");
  const ModelSpec& spec = result.spec;
  EXPECT_EQ(spec.name, "net");
  EXPECT_EQ(spec.input_shape, (std::vector<int>{3, 8, 8}));
  EXPECT_EQ(spec.classes, 5);
  EXPECT_FALSE(spec.forward_only);
  std::vector<std::string> names, types;
  for (const auto& l : spec.layers) names.push_back(l.name), types.push_back(l.type);
  EXPECT_EQ(names, (std::vector<std::string>{"stem_conv1_Conv", "bn1", "relu1", "conv2", "res", "gap", "fc", "loss"}));
  EXPECT_EQ(types, (std::vector<std::string>{"convolution", "batch_norm", "relu", "convolution", "add", "global_avg_pool",
                                             "inner_product", "softmax_loss"}));
  const LayerSpec& c1 = spec.layer("stem_conv1_Conv");
  EXPECT_EQ(c1.params, (std::map<std::string, std::string>{
                           {"outputs", "4"}, {"kernel", "3"}, {"stride", "1"}, {"pad", "1"}, {"bias", "false"}}));
  EXPECT_EQ(c1.inputs, (std::vector<std::string>{"data"}));
  const LayerSpec& bn = spec.layer("bn1");
  EXPECT_DOUBLE_EQ(bn.get_double("eps", 0), static_cast<double>(1e-3f));
  EXPECT_DOUBLE_EQ(bn.get_double("momentum", 0), 1.0 - static_cast<double>(0.9f));  // ONNX m -> torch 1 - m
  EXPECT_EQ(bn.get_string("momentum_style", ""), "torch");
  EXPECT_EQ(spec.layer("res").inputs, (std::vector<std::string>{"relu1", "conv2"}));
  EXPECT_EQ(spec.layer("conv2").params.count("bias"), 0u);  // with B: the default bias=true
  EXPECT_EQ(spec.layer("fc").get_int("outputs", 0), 5);
  EXPECT_EQ(spec.layer("fc").inputs, (std::vector<std::string>{"gap"}));  // Flatten: an alias
  expect_given(spec, "stem_conv1_Conv.weight", {4, 3, 3, 3}, r.w1);
  expect_given(spec, "bn1.weight", {4}, r.bn_scale);
  expect_given(spec, "bn1.bias", {4}, r.bn_b);
  expect_given(spec, "bn1.running_mean", {4}, r.bn_mean);
  expect_given(spec, "bn1.running_var", {4}, r.bn_var);
  expect_given(spec, "conv2.weight", {4, 4, 3, 3}, r.w2);
  expect_given(spec, "conv2.bias", {4}, r.b2);
  expect_given(spec, "fc.weight", {5, 4}, r.fc_w);  // transB 1: [O, I] as is
  expect_given(spec, "fc.bias", {5}, r.fc_b);
  EXPECT_EQ(spec.given.size(), 9u);
  EXPECT_NE(result.note.find("softmax_loss appended"), std::string::npos) << result.note;
  // The given values are the initial parameters and state every strategy starts from.
  const auto params = make_initial_parameters(spec, kernels::DType::f64, 7);
  ASSERT_EQ(params.size(), 7u);
  EXPECT_EQ(params[0].name, "stem_conv1_Conv.weight");
  EXPECT_EQ(params[0].value.at(5), r.w1[5]);
  const auto state = make_initial_state(spec, kernels::DType::f64);
  ASSERT_EQ(state.size(), 2u);
  EXPECT_EQ(state[1].name, "bn1.running_var");
  EXPECT_EQ(state[1].value.at(2), r.bn_var[2]);
}

TEST(OnnxImport, LoadModelReadsAnOnnxFile) {
  ResidualNet r;
  const auto path = temp_file("residual.onnx", r.net.bytes());
  const ModelSpec spec = load_model(path.string());
  EXPECT_EQ(spec.name, "residual");
  EXPECT_EQ(spec.source, path.string());
  EXPECT_EQ(spec.layers.back().type, "softmax_loss");
  EXPECT_NE(spec.note.find("softmax_loss appended"), std::string::npos);
  CheckedModel checked(spec);
  EXPECT_EQ(checked.size(), 8u);
}

// PyTorch's Linear at some opsets: MatMul by W^T [I, O], then Add of the bias; a final Softmax.
TEST(OnnxImport, MatMulWithAddedBiasFoldsIntoOneInnerProduct) {
  OnnxNet net(11);
  net.input("x", {-1, 6});
  const auto w = net.weight("w", {6, 3});  // [I, O]
  const auto b = net.weight("b", {3}, 0.5);
  net.node("MatMul", "", {"x", "w"}, {"mm"});
  net.node("Add", "", {"mm", "b"}, {"y"});
  auto* sm = net.node("Softmax", "", {"y"}, {"p"});
  OnnxNet::integer(sm, "axis", 1);
  net.output("p");
  const auto result = onnx_import::import_model(net.model, "linear.onnx");
  const ModelSpec& spec = result.spec;
  EXPECT_EQ(spec.input_shape, (std::vector<int>{6, 1, 1}));
  ASSERT_EQ(spec.layers.size(), 2u);
  EXPECT_EQ(spec.layers[0].name, "mm");
  EXPECT_EQ(spec.layers[0].type, "inner_product");
  EXPECT_EQ(spec.layers[0].params.count("bias"), 0u);
  EXPECT_EQ(spec.layers[1].type, "softmax_loss");
  std::vector<double> wt(18);
  for (int i = 0; i < 6; ++i)
    for (int o = 0; o < 3; ++o) wt[static_cast<std::size_t>(o * 6 + i)] = w[static_cast<std::size_t>(i * 3 + o)];
  expect_given(spec, "mm.weight", {3, 6}, wt);
  expect_given(spec, "mm.bias", {3}, b);
  EXPECT_NE(result.note.find("Softmax dropped"), std::string::npos) << result.note;
}

TEST(OnnxImport, LogSoftmaxEndGetsNllLossAndForwardOnlyAppendsNone) {
  OnnxNet net;
  net.input("x", {2, 4});
  net.weight("w", {3, 4});
  auto* g = net.node("Gemm", "fc", {"x", "w"}, {"y"});
  OnnxNet::integer(g, "transB", 1);
  net.node("LogSoftmax", "lsm", {"y"}, {"z"});
  net.output("z");
  const auto trained = onnx_import::import_model(net.model, "m.onnx");
  ASSERT_EQ(trained.spec.layers.size(), 3u);
  EXPECT_EQ(trained.spec.layers[1].type, "log_softmax");
  EXPECT_EQ(trained.spec.layers[2].type, "nll_loss");
  EXPECT_EQ(trained.spec.layers[0].get_string("bias", ""), "false");
  onnx_import::ImportOptions options;
  options.forward_only = true;
  const auto forward = onnx_import::import_model(net.model, "m.onnx", options);
  ASSERT_EQ(forward.spec.layers.size(), 2u);
  EXPECT_TRUE(forward.spec.forward_only);
  EXPECT_EQ(forward.spec.layers[1].type, "log_softmax");
  CheckedModel checked(forward.spec);  // no loss, and that is fine for a forward-only model
  ModelSpec not_forward = forward.spec;
  not_forward.forward_only = false;
  expect_error([&] { CheckedModel{not_forward}; }, {"must end with a loss layer"});
}

TEST(OnnxImport, WeightsGivenAsGraphInputsBecomeGivenValues) {
  OnnxNet net;
  net.input("x", {1, 2, 5, 5});
  net.input("W", {3, 2, 3, 3});
  net.node("Conv", "c", {"x", "W"}, {"y"});
  net.output("y");
  onnx_import::ImportOptions options;
  options.forward_only = true;
  std::vector<double> w(54);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<double>(i) / 100;
  options.input_values["W"] = {{3, 2, 3, 3}, w};
  const auto result = onnx_import::import_model(net.model, "conv.onnx", options);
  expect_given(result.spec, "c.weight", {3, 2, 3, 3}, w);
  EXPECT_EQ(result.spec.classes, 0);
  expect_error([&] { onnx_import::import_model(net.model, "conv.onnx"); },
               {"conv.onnx", "2 inputs that are not initializers", "x, W"});
}

TEST(OnnxImport, TruncatedAndNonOnnxFilesAreErrorsNamingTheFile) {
  ResidualNet r;
  const std::string bytes = r.net.bytes();
  const auto truncated = temp_file("truncated.onnx", bytes.substr(0, bytes.size() / 2));
  expect_error([&] { load_model(truncated.string()); }, {truncated.string(), "not an ONNX model"});
  const auto text = temp_file("lenet.onnx", "model lenet\ninput 1 28 28\nclasses 10\nlayer loss softmax_loss\n");
  expect_error([&] { load_model(text.string()); }, {text.string(), "not an ONNX model"});
  const auto empty = temp_file("empty.onnx", "");
  expect_error([&] { load_model(empty.string()); }, {empty.string(), "not an ONNX model"});
  expect_error([&] { load_model("/nonexistent/net.onnx"); }, {"/nonexistent/net.onnx", "cannot read"});
}

TEST(OnnxImport, AnUnsupportedOpNamesTheNodeItsTypeAndTheSupportedOps) {
  OnnxNet net;
  net.input("x", {-1, 4, 3});
  net.node("LSTM", "encoder_lstm", {"x"}, {"y"});
  net.output("y");
  expect_error([&] { onnx_import::import_model(net.model, "seq.onnx"); },
               {"seq.onnx", "node 'encoder_lstm' (LSTM)", "op type 'LSTM' is not supported", "supported ONNX ops:", "Conv",
                "Gemm", "BatchNormalization"});
}

TEST(OnnxImport, ABadAttributeNamesTheNodeTheAttributeAndTheSupportedOps) {
  OnnxNet net;
  net.input("x", {-1, 4, 8, 8});
  net.weight("w", {4, 2, 3, 3});
  auto* c = net.node("Conv", "grouped", {"x", "w"}, {"y"});
  OnnxNet::integer(c, "group", 2);
  net.node("GlobalAveragePool", "gap", {"y"}, {"g"});
  net.node("Flatten", "flat", {"g"}, {"f"});
  net.output("f");
  expect_error([&] { onnx_import::import_model(net.model, "grouped.onnx"); },
               {"grouped.onnx", "node 'grouped' (Conv)", "attribute 'group'", "= 2", "supported ONNX ops:", "Relu"});
  OnnxNet pads;
  pads.input("x", {-1, 1, 8, 8});
  pads.weight("w", {1, 1, 3, 3});
  auto* p = pads.node("Conv", "asym", {"x", "w"}, {"y"});
  OnnxNet::ints(p, "pads", {1, 0, 1, 0});
  pads.output("y");
  expect_error([&] { onnx_import::import_model(pads.model, "pads.onnx"); }, {"node 'asym' (Conv)", "attribute 'pads'"});
  OnnxNet avg;
  avg.input("x", {-1, 1, 8, 8});
  auto* a = avg.node("AveragePool", "avg", {"x"}, {"y"});
  OnnxNet::ints(a, "kernel_shape", {3, 3});
  OnnxNet::ints(a, "pads", {1, 1, 1, 1});
  avg.output("y");
  onnx_import::ImportOptions forward;
  forward.forward_only = true;
  expect_error([&] { onnx_import::import_model(avg.model, "avg.onnx", forward); },
               {"node 'avg' (AveragePool)", "attribute 'count_include_pad'"});
}

TEST(OnnxImport, AModelToTrainMustEndInLogits) {
  OnnxNet net;
  net.input("x", {-1, 1, 4, 4});
  net.node("Relu", "r", {"x"}, {"y"});
  net.output("y");
  expect_error([&] { onnx_import::import_model(net.model, "relu.onnx"); },
               {"relu.onnx", "graph output 'y'", "[N, classes]", "forward_only"});
}

}  // namespace
}  // namespace ablate::models
