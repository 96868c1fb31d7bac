// The Vision Transformer's layer types: vit-tiny's shapes and parameters from the
// zoo file (patches of 7 as 16 tokens of 64, four blocks, the classifier on the tokens' mean),
// each type's parameter shapes and initial values, and the shape errors naming file, line, layer
// and shapes (heads not dividing D, tokens into a convolution, an image into attention).
#include <gtest/gtest.h>

#include "models/model_spec.h"
#include "models/parameters.h"
#include "models/shape_inference.h"
#include "error_expectations.h"

namespace ablate::models {
namespace {

using testing::expect_error;
using Dims = std::vector<std::int64_t>;

ModelSpec model(const std::string& layers) {
  return parse_model("model m\ninput 1 8 8\nclasses 3\n" + layers, "bad.model");
}

void expect_shape_error(const std::string& layers, const std::vector<std::string>& fragments) {
  expect_error([&] { infer_shapes(model(layers), 1); }, fragments);
}

const char* kPatch = "layer p1 convolution outputs=6 kernel=4 stride=4\nlayer t1 tokens\n";  // lines 4, 5
const char* kTail = "layer f1 linear outputs=3\nlayer loss softmax_loss\n";

TEST(AttentionTypes, VitTinyShapes) {
  const ModelSpec spec = load_model("vit-tiny");
  const auto shapes = infer_shapes(spec, 8);
  auto of = [&](const std::string& name) -> const LayerShapes& {
    for (const LayerShapes& s : shapes)
      if (s.name == name) return s;
    throw std::logic_error("no layer " + name);
  };
  EXPECT_EQ(of("patch").output, (Dims{8, 64, 4, 4}));
  EXPECT_EQ(of("tokens").output, (Dims{8, 16, 64}));
  EXPECT_EQ(of("pos").params, (std::vector<Dims>{{16, 64}}));
  EXPECT_EQ(of("b4_attn").output, (Dims{8, 16, 64}));
  EXPECT_EQ(of("b4_attn").param_names, (std::vector<std::string>{"query_weight", "query_bias", "key_weight", "key_bias",
                                                                  "value_weight", "value_bias", "out_weight", "out_bias"}));
  EXPECT_EQ(of("b1_fc1").output, (Dims{8, 16, 128}));
  EXPECT_EQ(of("b1_fc1").params, (std::vector<Dims>{{128, 64}, {128}}));
  EXPECT_EQ(of("norm").params, (std::vector<Dims>{{64}, {64}}));
  EXPECT_EQ(of("pool").output, (Dims{8, 64}));
  EXPECT_EQ(of("fc").output, (Dims{8, 10}));
  std::int64_t count = 0;
  for (const InitialParameter& p : make_initial_parameters(spec, kernels::DType::f32, 1)) count += p.value.numel();
  // patch 3200, pos 1024, 4 blocks of 33472 (norms 256, attention 16640, MLP 16576), norm 128, fc 650
  EXPECT_EQ(count, 3200 + 1024 + 4 * 33472 + 128 + 650);
}

TEST(AttentionTypes, InitialValues) {
  const ModelSpec spec = model(std::string(kPatch) + "layer pe pos_embed\nlayer ln layer_norm\nlayer a1 attention heads=2\n" +
                               "layer m1 token_mean\n" + kTail);
  for (const InitialParameter& p : make_initial_parameters(spec, kernels::DType::f64, 5)) {
    double largest = 0, sum = 0;
    for (std::int64_t i = 0; i < p.value.numel(); ++i) {
      largest = std::max(largest, std::abs(p.value.at(i)));
      sum += p.value.at(i);
    }
    if (p.name == "ln.weight") {
      EXPECT_EQ(sum, 6.0);
    } else if (p.name == "ln.bias" || p.name.ends_with("_bias")) {
      EXPECT_EQ(largest, 0.0) << p.name;
    } else if (p.name == "pe.weight") {
      EXPECT_TRUE(largest > 0 && largest <= 0.04) << p.name << " " << largest;  // truncated at 2 std
    } else if (p.name.ends_with("_weight")) {
      EXPECT_GT(largest, 0.05) << p.name;  // xavier over 6 x 6
    }
  }
}

TEST(AttentionTypes, ShapeErrorsNameTheLayerAndTheShapes) {
  expect_shape_error(std::string(kPatch) + "layer a1 attention heads=4\nlayer m1 token_mean\n" + kTail,
                     {"bad.model:6:", "a1", "heads=4", "does not divide the width D = 6", "[1, 4, 6]"});
  expect_shape_error(std::string(kPatch) + "layer c2 convolution outputs=2 kernel=1\n" + kTail,
                     {"bad.model:6:", "c2", "expects input [N, C, H, W]", "got [1, 4, 6]", "tokens [N, T, D]"});
  expect_shape_error("layer a1 attention heads=1\n" + std::string(kTail),
                     {"bad.model:4:", "a1", "expects tokens [N, T, D]", "got [1, 1, 8, 8]", "through a 'tokens' layer"});
  expect_shape_error("layer t1 tokens\nlayer t2 tokens\n" + std::string(kTail),
                     {"bad.model:5:", "t2", "expects input [N, C, H, W]", "got [1, 64, 1]"});
  expect_shape_error(std::string(kPatch) + "layer m1 token_mean\nlayer m2 token_mean\n" + kTail,
                     {"bad.model:7:", "m2", "expects tokens [N, T, D]", "got [1, 6]"});
  expect_shape_error("layer l1 layer_norm\nlayer f0 linear outputs=4\nlayer pe pos_embed\n" + std::string(kTail),
                     {"bad.model:6:", "pe", "expects tokens [N, T, D]", "got [1, 1, 8, 4]"});
  expect_error([&] { model(std::string(kPatch) + "layer ln layer_norm eps=0\n" + kTail); }, {"bad.model:6:", "ln", "eps"});
}

}  // namespace
}  // namespace ablate::models
