// CheckedModel: the model checks run once, with the parser's messages, for specs built in
// code; inputs named, types resolved, shapes at batch 1.
#include <gtest/gtest.h>

#include "models/checked_model.h"
#include "models/layer_catalog.h"
#include "error_expectations.h"

namespace ablate::models {
namespace {

using testing::expect_error;

const char* kLenetText =
    "model tiny\ninput 1 8 8\nclasses 3\n"
    "layer c1 convolution outputs=2 kernel=3\n"  // line 4
    "layer p1 pooling kernel=2\n"
    "layer r1 relu\n"
    "layer f1 inner_product outputs=3\n"
    "layer loss softmax_loss\n";  // line 8

ModelSpec lenet() { return parse_model(kLenetText, "tiny.model"); }

TEST(CheckedModel, NamesInputsResolvesTypesAndShapes) {
  ModelSpec in_code = lenet();
  for (auto& layer : in_code.layers) layer.inputs.clear();
  const CheckedModel m(in_code);
  ASSERT_EQ(m.size(), 5u);
  EXPECT_EQ(m.input(0), -1);
  for (std::size_t i = 1; i < m.size(); ++i) {
    EXPECT_EQ(m.input(i), static_cast<int>(i) - 1);
    EXPECT_EQ(m.layer(i).inputs, std::vector<std::string>{m.layer(i - 1).name});
  }
  EXPECT_EQ(m.type(0).name, "convolution");
  EXPECT_EQ(&m.type(4), find_layer_type("softmax_loss"));
  EXPECT_EQ(m.unit_shapes()[0].output, (Dims{1, 2, 6, 6}));
  EXPECT_EQ(m.unit_shapes()[3].param_names, (std::vector<std::string>{"weight", "bias"}));
  EXPECT_EQ(m.input_shape(7), (kernels::Shape{7, 1, 8, 8}));
}

TEST(CheckedModel, TheParsersMessagesForSpecsBuiltInCode) {
  auto duplicate = lenet();
  duplicate.layers[2].name = "c1";
  expect_error([&] { CheckedModel{duplicate}; }, {"tiny.model:6:", "duplicate layer name 'c1'", "used twice"});
  auto dangling = lenet();
  dangling.layers[3].inputs = {"c9"};
  expect_error([&] { CheckedModel{dangling}; }, {"tiny.model:7:", "'f1'", "input 'c9'", "not a layer defined before"});
  auto no_loss = lenet();
  no_loss.layers.pop_back();
  expect_error([&] { CheckedModel{no_loss}; },
               {"tiny.model:7:", "'f1'", "must be a loss", "must end with a loss layer", "nll_loss or softmax_loss"});
  auto early_loss = lenet();
  early_loss.layers.push_back(early_loss.layers[2]);  // a relu after the loss
  early_loss.layers.back().name = "r2";
  early_loss.layers.back().inputs = {"f1"};
  expect_error([&] { CheckedModel{early_loss}; }, {"'loss'", "must be the last layer"});
  auto unknown = lenet();
  unknown.layers[1].type = "maxpool";
  expect_error([&] { CheckedModel{unknown}; }, {"tiny.model:5:", "'p1'", "unknown layer type 'maxpool'", "conv_map"});
  auto empty = lenet();
  empty.layers.clear();
  expect_error([&] { CheckedModel{empty}; }, {"model 'tiny'", "has no layers"});
  auto no_shape = lenet();
  no_shape.input_shape = {1, 8};
  expect_error([&] { CheckedModel{no_shape}; }, {"model 'tiny'", "input shape C H W"});
}

TEST(CheckedModel, ShapesAreCheckedOnce) {
  auto wrong_classes = lenet();
  wrong_classes.classes = 5;
  expect_error([&] { CheckedModel{wrong_classes}; }, {"tiny.model:8:", "'loss'", "[N, 5]", "[1, 3]"});
  auto too_big = lenet();
  too_big.layers[0].params["kernel"] = "9";
  expect_error([&] { CheckedModel{too_big}; }, {"tiny.model:4:", "'c1'", "kernel 9x9", "larger"});
}

}  // namespace
}  // namespace ablate::models
