// The descriptions of the two layer types added through models/layers/:
// gelu (approximate=none|tanh, an activation whose backward reads its input) and batch_norm
// (parameters, running statistics as state with their initial values, the keys of each
// momentum style and the errors of keys that do not fit together); the zoo's lenet-bn-gelu.
#include <gtest/gtest.h>

#include <string>

#include "error_expectations.h"
#include "models/layer_catalog.h"
#include "models/layer_params.h"
#include "models/model_spec.h"
#include "models/parameters.h"
#include "models/shape_inference.h"

namespace ablate::models {
namespace {

using testing::expect_error;

// A model "m" on a 2x5x5 input with `layer` (a line without "layer ") after a convolution, or
// on the flattened features when `flat`.
std::string with_layer(const std::string& layer, bool flat = false) {
  return std::string("model m\ninput 2 5 5\nclasses 3\nlayer c1 convolution outputs=4 kernel=3\n") +
         (flat ? "layer ip0 inner_product outputs=6\n" : "") + "layer " + layer +
         "\nlayer ip inner_product outputs=3\nlayer loss softmax_loss\n";
}

TEST(GeluType, IsAnActivationReadingItsInputInEitherForm) {
  const LayerType* gelu = find_layer_type("gelu");
  ASSERT_NE(gelu, nullptr);
  EXPECT_TRUE(gelu->backward_reads_input);
  EXPECT_FALSE(gelu->in_place);
  EXPECT_FALSE(gelu->backward_reads_output);
  const ModelSpec spec = parse_model(with_layer("g gelu") + "", "m.model");
  EXPECT_EQ(gelu->activation(spec.layer("g")), kernels::Activation::gelu);
  const ModelSpec tanh_form = parse_model(with_layer("g gelu approximate=tanh"), "m.model");
  EXPECT_EQ(gelu->activation(tanh_form.layer("g")), kernels::Activation::gelu_tanh);
  EXPECT_EQ(infer_shapes(spec, 2)[1].output, (Dims{2, 4, 3, 3}));
  expect_error([] { parse_model(with_layer("g gelu approximate=erf"), "m.model"); },
               {"m.model:5", "layer 'g' (gelu)", "'approximate'", "none|tanh", "'erf'"});
}

TEST(BatchNormType, TorchStyleLearnsAScaleAndShiftAndKeepsRunningMeanAndVariance) {
  const ModelSpec spec = parse_model(with_layer("bn batch_norm"), "m.model");
  const LayerShapes s = infer_shapes(spec, 2)[1];
  EXPECT_EQ(s.output, (Dims{2, 4, 3, 3}));
  EXPECT_EQ(s.param_names, (std::vector<std::string>{"weight", "bias"}));
  EXPECT_EQ(s.params, (std::vector<Dims>{{4}, {4}}));
  ASSERT_EQ(s.state.size(), 2u);
  EXPECT_EQ(s.state[0].suffix, "running_mean");
  EXPECT_EQ(s.state[1].suffix, "running_var");
  const BatchNormParams p = batch_norm_params(spec.layer("bn"));
  EXPECT_EQ(p.style, MomentumStyle::torch);
  EXPECT_DOUBLE_EQ(p.momentum, 0.1);
  EXPECT_DOUBLE_EQ(p.epsilon, 1e-5);
  EXPECT_TRUE(p.affine);
  // The scale starts at 1 and the shift at 0 (PyTorch's reset_parameters), the running mean at
  // 0 and the running variance at 1 (reset_running_stats).
  for (const InitialParameter& ip : make_initial_parameters(spec, kernels::DType::f64, 3)) {
    if (ip.layer != "bn") continue;
    for (std::int64_t i = 0; i < ip.value.numel(); ++i) EXPECT_EQ(ip.value.at(i), ip.name == "bn.weight" ? 1.0 : 0.0);
  }
  const auto state = make_initial_state(spec, kernels::DType::f32);
  ASSERT_EQ(state.size(), 2u);
  EXPECT_EQ(state[0].name, "bn.running_mean");
  EXPECT_EQ(state[1].name, "bn.running_var");
  EXPECT_EQ(state[1].layer, "bn");
  EXPECT_EQ(state[1].value.dtype(), kernels::DType::f32);
  for (std::int64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(state[0].value.at(i), 0.0);
    EXPECT_EQ(state[1].value.at(i), 1.0);
  }
}

TEST(BatchNormType, CaffeStyleKeepsSumsAndAScaleFactorWithoutAnAffinePart) {
  const ModelSpec spec = parse_model(with_layer("bn batch_norm momentum_style=caffe moving_average_fraction=0.9 eps=1e-3", true), "m.model");
  const LayerShapes s = infer_shapes(spec, 2)[2];
  EXPECT_EQ(s.output, (Dims{2, 6}));  // [N, C] after an inner product
  EXPECT_TRUE(s.params.empty());
  const auto state = make_initial_state(spec, kernels::DType::f64);
  ASSERT_EQ(state.size(), 3u);
  EXPECT_EQ(state[0].name, "bn.mean_sum");
  EXPECT_EQ(state[1].name, "bn.var_sum");
  EXPECT_EQ(state[2].name, "bn.scale_factor");
  EXPECT_EQ(state[0].value.shape(), (kernels::Shape{6}));
  EXPECT_EQ(state[2].value.shape(), (kernels::Shape{1}));
  EXPECT_EQ(state[1].value.at(5), 0.0);
  const BatchNormParams p = batch_norm_params(spec.layer("bn"));
  EXPECT_EQ(p.style, MomentumStyle::caffe);
  EXPECT_DOUBLE_EQ(p.moving_average_fraction, 0.9);
  EXPECT_DOUBLE_EQ(p.epsilon, 1e-3);
  EXPECT_FALSE(p.affine);
  // Caffe's BatchNorm followed by a Scale layer: affine=true, with its own initializer.
  const ModelSpec scaled = parse_model(with_layer("bn batch_norm momentum_style=caffe affine=true weight_init=constant:2"), "m.model");
  const auto params = make_initial_parameters(scaled, kernels::DType::f32, 1);
  ASSERT_EQ(params[2].name, "bn.weight");  // after c1.weight, c1.bias
  EXPECT_EQ(params[2].value.at(3), 2.0);
  EXPECT_EQ(make_initial_state(scaled, kernels::DType::f32).size(), 3u);
}

TEST(BatchNormType, KeysThatDoNotFitAreErrorsNamingTheLayer) {
  expect_error([] { parse_model(with_layer("bn batch_norm momentum_style=caffe momentum=0.2"), "m.model"); },
               {"m.model:5", "layer 'bn' (batch_norm)", "'momentum' given with momentum_style=caffe"});
  expect_error([] { parse_model(with_layer("bn batch_norm moving_average_fraction=0.9"), "m.model"); },
               {"'moving_average_fraction' given with momentum_style=torch"});
  expect_error([] { parse_model(with_layer("bn batch_norm affine=false weight_lr_mult=2"), "m.model"); },
               {"'weight_lr_mult' given but affine=false"});
  expect_error([] { parse_model(with_layer("bn batch_norm momentum_style=caffe bias_init=constant:1"), "m.model"); },
               {"'bias_init' given but affine=false"});
  expect_error([] { parse_model(with_layer("bn batch_norm momentum=0"), "m.model"); }, {"'momentum'", "(0, 1]", "'0'"});
  expect_error([] { parse_model(with_layer("bn batch_norm eps=0"), "m.model"); }, {"'eps'", "positive", "'0'"});
  expect_error([] { parse_model(with_layer("bn batch_norm momentum_style=keras"), "m.model"); }, {"torch|caffe", "'keras'"});
  // A rank-3 input: a model whose input is [N, C, H, W] reshaped nowhere cannot give one; the
  // shape rule names what it expects for any other rank.
  LayerShapes s;
  s.input = {2, 3, 4};
  LayerSpec bn;
  bn.name = "bn";
  bn.type = "batch_norm";
  bn.source = "m.model:9";
  expect_error([&] { find_layer_type("batch_norm")->shape(bn, ModelSpec{}, s); }, {"[N, C] or [N, C, H, W]"});
}

TEST(BatchNormType, TheZooModelUsesBothTypes) {
  const ModelSpec spec = load_model("lenet-bn-gelu");
  std::vector<std::string> state;
  for (const InitialState& s : make_initial_state(spec, kernels::DType::f32)) state.push_back(s.name);
  EXPECT_EQ(state, (std::vector<std::string>{"bn1.running_mean", "bn1.running_var", "bn2.running_mean", "bn2.running_var"}));
  int gelu = 0;
  for (const LayerSpec& l : spec.layers) gelu += l.type == "gelu";
  EXPECT_EQ(gelu, 3);
  EXPECT_EQ(find_layer_type("gelu")->activation(spec.layer("gelu3")), kernels::Activation::gelu_tanh);
}

}  // namespace
}  // namespace ablate::models
