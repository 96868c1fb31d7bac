// make_initial_parameters: the canonical order, names, shapes, multipliers and values.
#include <gtest/gtest.h>

#include <cmath>

#include "models/initializers.h"
#include "models/model_spec.h"
#include "models/parameters.h"

namespace ablate::models {
namespace {

TEST(Parameters, LenetOrderNamesShapesAndMultipliers) {
  const auto params = make_initial_parameters(load_model("lenet"), kernels::DType::f32, 1);
  const std::vector<std::pair<std::string, kernels::Shape>> expected = {
      {"conv1.weight", {20, 1, 5, 5}}, {"conv1.bias", {20}},  {"conv2.weight", {50, 20, 5, 5}},
      {"conv2.bias", {50}},            {"ip1.weight", {500, 800}}, {"ip1.bias", {500}},
      {"ip2.weight", {10, 500}},       {"ip2.bias", {10}}};
  ASSERT_EQ(params.size(), expected.size());
  for (std::size_t i = 0; i < params.size(); ++i) {
    const InitialParameter& p = params[i];
    EXPECT_EQ(p.name, expected[i].first);
    EXPECT_EQ(p.value.shape(), expected[i].second) << p.name;
    EXPECT_EQ(p.value.dtype(), kernels::DType::f32);
    EXPECT_EQ(p.layer, p.name.substr(0, p.name.find('.')));
    const bool bias = p.name.ends_with(".bias");
    EXPECT_DOUBLE_EQ(p.lr_mult, bias ? 2.0 : 1.0) << p.name;  // Caffe: param { lr_mult: 2 } on biases
    EXPECT_DOUBLE_EQ(p.decay_mult, 1.0);
    double max_abs = 0;
    for (std::int64_t j = 0; j < p.value.numel(); ++j) max_abs = std::max(max_abs, std::fabs(p.value.at(j)));
    if (bias) {
      EXPECT_EQ(max_abs, 0.0) << p.name;  // constant:0
    } else {
      const double a = std::sqrt(3.0 * p.value.dim(0) / static_cast<double>(p.value.numel()));  // xavier
      EXPECT_LE(max_abs, a * (1 + 1e-6)) << p.name;
      EXPECT_GT(max_abs, 0.9 * a) << p.name;
    }
  }
}

TEST(Parameters, OneGeneratorInFileOrder) {
  // The values equal filling each tensor in order from one mt19937_64(seed).
  const ModelSpec spec = load_model("lenet");
  const auto params = make_initial_parameters(spec, kernels::DType::f64, 123);
  std::mt19937_64 rng(123);
  for (const auto& p : params) {
    kernels::Tensor expected(p.value.shape(), kernels::DType::f64);
    initialize(expected, p.name.ends_with(".bias") ? "constant:0" : "xavier", rng);
    for (std::int64_t j = 0; j < expected.numel(); ++j) ASSERT_EQ(p.value.at(j), expected.at(j)) << p.name;
  }
}

TEST(Parameters, DeterministicPerSeedAndIdenticalAcrossPrecisions) {
  const ModelSpec spec = load_model("lenet");
  const auto a = make_initial_parameters(spec, kernels::DType::f32, 5);
  const auto b = make_initial_parameters(spec, kernels::DType::f32, 5);
  const auto c = make_initial_parameters(spec, kernels::DType::f32, 6);
  const auto d = make_initial_parameters(spec, kernels::DType::f64, 5);
  for (std::size_t i = 0; i < a.size(); ++i) {
    for (std::int64_t j = 0; j < a[i].value.numel(); ++j) {
      ASSERT_EQ(a[i].value.at(j), b[i].value.at(j));
      ASSERT_EQ(a[i].value.at(j), static_cast<double>(static_cast<float>(d[i].value.at(j))));
    }
  }
  EXPECT_NE(a[0].value.at(0), c[0].value.at(0));
}

TEST(Parameters, DefaultsBiasLayersAndTheanoConvPoolFanOut) {
  const ModelSpec spec = parse_model(
      "model theano\ninput 1 12 12\nclasses 4\n"
      "layer c1 convolution outputs=6 kernel=5 bias=false weight_init=glorot\n"
      "layer p1 pooling kernel=2\n"
      "layer b1 bias bias_init=constant:0.5 bias_lr_mult=3 bias_decay_mult=0\n"
      "layer t1 tanh\n"
      "layer f1 inner_product outputs=4 weight_init=uniform_fan_in bias_init=uniform_fan_in weight_decay_mult=0.5\n"
      "layer ls log_softmax\n"
      "layer loss nll_loss\n",
      "theano.model");
  const auto params = make_initial_parameters(spec, kernels::DType::f64, 23455);
  ASSERT_EQ(params.size(), 4u);
  EXPECT_EQ(params[0].name, "c1.weight");
  EXPECT_EQ(params[1].name, "b1.bias");
  EXPECT_EQ(params[1].value.shape(), (kernels::Shape{6}));
  EXPECT_DOUBLE_EQ(params[1].lr_mult, 3.0);
  EXPECT_DOUBLE_EQ(params[1].decay_mult, 0.0);
  for (std::int64_t j = 0; j < 6; ++j) EXPECT_EQ(params[1].value.at(j), 0.5);
  EXPECT_EQ(params[2].name, "f1.weight");
  EXPECT_DOUBLE_EQ(params[2].decay_mult, 0.5);
  EXPECT_DOUBLE_EQ(params[3].decay_mult, 1.0);

  // Theano's LeNetConvPoolLayer: fan_in = 1 * 25, fan_out = 6 * 25 / 2^2.
  std::mt19937_64 rng(23455);
  kernels::Tensor conv({6, 1, 5, 5}, kernels::DType::f64);
  initialize(conv, "glorot", rng, 6.0 * 25 / 4);
  for (std::int64_t j = 0; j < conv.numel(); ++j) ASSERT_EQ(params[0].value.at(j), conv.at(j));
  // Torch's reset(): the bias uses the weight's fan_in (6 * 4 * 4 = 96 inputs).
  kernels::Tensor weight({4, 96}, kernels::DType::f64), bias({4}, kernels::DType::f64);
  initialize(weight, "uniform_fan_in", rng);
  initialize(bias, "uniform_fan_in", rng, 0, 96);
  for (std::int64_t j = 0; j < 4; ++j) {
    ASSERT_EQ(params[3].value.at(j), bias.at(j));
    EXPECT_LE(std::fabs(bias.at(j)), 1.0 / std::sqrt(96.0));
  }
}

}  // namespace
}  // namespace ablate::models
