// Parsing of the model format: Caffe's LeNet from the zoo and the typed getters of LayerSpec.
#include <gtest/gtest.h>

#include <algorithm>

#include "models/model_spec.h"
#include "error_expectations.h"

namespace ablate::models {
namespace {

using testing::expect_error;

TEST(ModelSpec, LenetFromTheZooMatchesCaffesPrototxt) {
  const ModelSpec spec = load_model("lenet");
  EXPECT_EQ(spec.name, "lenet");
  EXPECT_EQ(spec.source, "<zoo>/lenet.model");
  EXPECT_EQ(spec.input_shape, (std::vector<int>{1, 28, 28}));
  EXPECT_EQ(spec.classes, 10);
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"conv1", "convolution"}, {"pool1", "pooling"},       {"conv2", "convolution"}, {"pool2", "pooling"},
      {"ip1", "inner_product"}, {"relu1", "relu"},          {"ip2", "inner_product"}, {"loss", "softmax_loss"}};
  ASSERT_EQ(spec.layers.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(spec.layers[i].name, expected[i].first);
    EXPECT_EQ(spec.layers[i].type, expected[i].second);
    EXPECT_EQ(spec.layers[i].inputs, std::vector<std::string>{i == 0 ? std::string(kModelInput) : expected[i - 1].first}) << spec.layers[i].name;
  }
  const LayerSpec& conv1 = spec.layer("conv1");
  EXPECT_EQ(conv1.get_int("outputs", 0), 20);
  EXPECT_EQ(conv1.get_int("kernel", 0), 5);
  EXPECT_EQ(conv1.get_string("weight_init", ""), "xavier");
  EXPECT_EQ(conv1.get_string("bias_init", ""), "constant:0");
  EXPECT_DOUBLE_EQ(conv1.get_double("bias_lr_mult", 1), 2.0);
  EXPECT_EQ(spec.layer("conv2").get_int("outputs", 0), 50);
  EXPECT_EQ(spec.layer("pool1").get_string("padding", ""), "caffe_ceil");
  EXPECT_EQ(spec.layer("pool2").get_int("stride", 0), 2);
  EXPECT_EQ(spec.layer("ip1").get_int("outputs", 0), 500);
  EXPECT_EQ(spec.layer("ip2").get_int("outputs", 0), 10);
  EXPECT_NE(conv1.source.find("<zoo>/lenet.model:"), std::string::npos);
  EXPECT_GT(conv1.line, 0);
}

TEST(ModelSpec, LoadsFromAFilePathAndByNameWithExtension) {
  const std::string path = std::string(ABLATE_SOURCE_DIR) + "/models/zoo/lenet.model";
  const ModelSpec from_file = load_model(path);
  EXPECT_EQ(from_file.source, path);
  EXPECT_EQ(from_file.layers.size(), load_model("lenet").layers.size());
  EXPECT_EQ(load_model("lenet.model").name, "lenet");
}

TEST(ModelSpec, UnknownModelListsTheZoo) {
  expect_error([] { load_model("no_such_model"); }, {"no_such_model", "zoo", "lenet"});
}

TEST(ModelSpec, CommentsBlankLinesAndExplicitInputs) {
  const ModelSpec spec = parse_model(
      "# a comment line\n"
      "\n"
      "model branchy   # trailing comment\n"
      "classes 3\n"
      "input 2 8 8\n"
      "layer c1 convolution outputs=4 kernel=3 padding=same\n"
      "layer r1 relu\n"
      "layer t1 tanh input=c1\n"
      "layer f1 inner_product outputs=3 input=r1 bias=false\n"
      "layer loss softmax_loss\n",
      "branchy.model");
  EXPECT_EQ(spec.name, "branchy");
  EXPECT_EQ(spec.input_shape, (std::vector<int>{2, 8, 8}));
  EXPECT_EQ(spec.layer("t1").inputs, std::vector<std::string>{"c1"});
  EXPECT_EQ(spec.layer("f1").inputs, std::vector<std::string>{"r1"});
  EXPECT_EQ(spec.layer("loss").inputs, std::vector<std::string>{"f1"});
  EXPECT_FALSE(spec.layer("f1").has("input"));  // the input lives in LayerSpec::input
  EXPECT_EQ(spec.layer("c1").source, "branchy.model:6");
  EXPECT_EQ(spec.layer("c1").line, 6);
}

TEST(ModelSpec, LayerTypesListTheirKeys) {
  const auto& types = layer_types();
  for (const char* type : {"convolution", "conv_map", "pooling", "inner_product", "bias", "relu", "tanh", "sigmoid",
                           "lrn", "dropout", "softmax_loss", "log_softmax", "nll_loss", "gelu", "batch_norm", "add",
                           "concat", "global_avg_pool", "tokens", "linear", "layer_norm", "pos_embed", "token_mean",
                           "attention"})
    ASSERT_TRUE(types.count(type)) << type;
  EXPECT_EQ(types.size(), 24u);
  auto accepts = [&](const std::string& type, const std::string& key) {
    const auto& keys = types.at(type);
    return std::find(keys.begin(), keys.end(), key) != keys.end();
  };
  for (const char* key : {"outputs", "kernel", "kernel_h", "kernel_w", "stride", "pad", "padding", "bias",
                          "weight_init", "bias_init", "weight_lr_mult", "bias_lr_mult", "weight_decay_mult",
                          "bias_decay_mult", "input"})
    EXPECT_TRUE(accepts("convolution", key)) << key;
  for (const char* key : {"mode", "kernel", "stride", "pad", "padding", "input"}) EXPECT_TRUE(accepts("pooling", key));
  EXPECT_FALSE(accepts("pooling", "outputs"));
  EXPECT_FALSE(accepts("inner_product", "kernel"));
  EXPECT_EQ(types.at("bias"), (std::vector<std::string>{"bias_init", "bias_lr_mult", "bias_decay_mult", "input"}));
  EXPECT_EQ(types.at("lrn"), (std::vector<std::string>{"size", "alpha", "beta", "k", "input"}));
  EXPECT_EQ(types.at("dropout"), (std::vector<std::string>{"keep", "input"}));
  EXPECT_EQ(types.at("relu"), (std::vector<std::string>{"input"}));
  EXPECT_EQ(types.at("gelu"), (std::vector<std::string>{"approximate", "input"}));
  for (const char* key : {"eps", "affine", "momentum_style", "momentum", "moving_average_fraction", "weight_init",
                          "weight_lr_mult", "bias_decay_mult", "input"})
    EXPECT_TRUE(accepts("batch_norm", key)) << key;
}

TEST(LayerSpec, GettersReturnFallbacksAndNameBadValues) {
  LayerSpec layer;
  layer.name = "c1";
  layer.type = "convolution";
  layer.source = "x.model:7";
  layer.params = {{"outputs", "12"}, {"alpha", "1e-4"}, {"oops", "3.5"}, {"word", "max"}};
  EXPECT_EQ(layer.get_int("outputs", 0), 12);
  EXPECT_EQ(layer.get_int("stride", 3), 3);
  EXPECT_DOUBLE_EQ(layer.get_double("alpha", 0), 1e-4);
  EXPECT_DOUBLE_EQ(layer.get_double("beta", 0.75), 0.75);
  EXPECT_EQ(layer.get_string("word", ""), "max");
  EXPECT_EQ(layer.get_string("none", "dflt"), "dflt");
  EXPECT_EQ(layer.require_int("outputs"), 12);
  EXPECT_DOUBLE_EQ(layer.require_double("oops"), 3.5);
  expect_error([&] { layer.get_int("oops", 0); }, {"x.model:7", "c1", "oops", "'3.5'", "integer"});
  expect_error([&] { layer.get_double("word", 0); }, {"x.model:7", "word", "'max'", "number"});
  expect_error([&] { layer.require_int("kernel"); }, {"x.model:7", "c1", "kernel"});
  expect_error([&] { layer.require_double("gamma"); }, {"x.model:7", "gamma"});
}

TEST(ModelSpec, LayerLookupNamesTheMissingLayer) {
  const ModelSpec spec = load_model("lenet");
  expect_error([&] { spec.layer("conv9"); }, {"conv9", "lenet", "conv1"});
}

}  // namespace
}  // namespace ablate::models
