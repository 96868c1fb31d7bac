// Models with branches: layers of several inputs (`input=a,b`), the model input named `data`,
// the add, concat and global_avg_pool types, fan-outs and the errors that name file:line, the
// layer and the shapes (a later input, a cycle, a wrong count of inputs, shapes that do not
// fit); values given by tensor name (an imported model's weights).
#include <gtest/gtest.h>

#include "error_expectations.h"
#include "models/checked_model.h"
#include "models/model_spec.h"
#include "models/parameters.h"

namespace ablate::models {
namespace {

using testing::expect_error;

// Lines 1-3 are the header; `layers` start at line 4.
std::string model_text(const std::string& layers) {
  return "model m\n"
         "input 2 8 8\n"
         "classes 3\n" +
         layers;
}

// A residual block and a concat of two branches of the model input.
const char* kBranchy =
    "layer c1 convolution outputs=2 kernel=3 pad=1\n"   // 4
    "layer r1 relu\n"                                    // 5
    "layer c2 convolution outputs=2 kernel=3 pad=1\n"   // 6
    "layer sum add input=c2,r1\n"                        // 7
    "layer left convolution outputs=3 kernel=1 input=data\n"  // 8
    "layer both concat input=sum,left\n"                 // 9
    "layer gap global_avg_pool\n"                        // 10
    "layer f1 inner_product outputs=3\n"                 // 11
    "layer loss softmax_loss\n";                         // 12

TEST(BranchModel, ParsesInputsAndTheirReaders) {
  const CheckedModel m(parse_model(model_text(kBranchy), "b.model"));
  EXPECT_EQ(m.layer(3).inputs, (std::vector<std::string>{"c2", "r1"}));
  EXPECT_EQ(m.inputs(3), (std::vector<int>{2, 1}));
  EXPECT_EQ(m.inputs(0), (std::vector<int>{-1}));
  EXPECT_EQ(m.inputs(4), (std::vector<int>{-1}));  // input=data: the model input
  EXPECT_EQ(m.readers(-1), (std::vector<int>{0, 4}));
  EXPECT_EQ(m.readers(1), (std::vector<int>{2, 3}));  // r1: a fan-out
  EXPECT_EQ(m.readers(3), (std::vector<int>{5}));
  EXPECT_FALSE(m.is_chain());
  const CheckedModel chain(parse_model(model_text("layer f1 inner_product outputs=3\nlayer loss softmax_loss\n"), "c.model"));
  EXPECT_TRUE(chain.is_chain());
}

TEST(BranchModel, ShapesOfAddConcatAndGlobalPooling) {
  const CheckedModel m(parse_model(model_text(kBranchy), "b.model"));
  const auto& s = m.unit_shapes();
  EXPECT_EQ(s[3].inputs.size(), 2u);
  EXPECT_EQ(s[3].output, (Dims{1, 2, 8, 8}));
  EXPECT_EQ(s[5].inputs[1], (Dims{1, 3, 8, 8}));
  EXPECT_EQ(s[5].output, (Dims{1, 5, 8, 8}));  // 2 + 3 channels
  EXPECT_EQ(s[6].output, (Dims{1, 5, 1, 1}));
  EXPECT_EQ(s[7].params[0], (Dims{3, 5}));
}

void expect_checked_error(const std::string& layers, const std::vector<std::string>& fragments) {
  expect_error([&] { CheckedModel(parse_model(model_text(layers), "bad.model")); }, fragments);
}

const char* kTail = "layer gap global_avg_pool\nlayer f1 inner_product outputs=3\nlayer loss softmax_loss\n";

TEST(BranchModel, AddOfDifferentShapesNamesBothInputsAndShapes) {
  expect_checked_error(std::string("layer c1 convolution outputs=2 kernel=3\nlayer c2 convolution outputs=2 kernel=1 input=data\n"
                                   "layer sum add input=c1,c2\n") + kTail,
                       {"bad.model:6", "'sum' (add)", "'c1' [1, 2, 6, 6]", "'c2' [1, 2, 8, 8]", "one shape"});
}

TEST(BranchModel, ConcatOfDifferentPlanesNamesTheShapes) {
  expect_checked_error(std::string("layer c1 convolution outputs=2 kernel=3\nlayer c2 convolution outputs=4 kernel=1 input=data\n"
                                   "layer both concat input=c1,c2\n") + kTail,
                       {"bad.model:6", "'both' (concat)", "[1, 2, 6, 6]", "[1, 4, 8, 8]", "axis 1"});
}

void expect_parse_error(const std::string& layers, const std::vector<std::string>& fragments) {
  expect_error([&] { parse_model(model_text(layers), "bad.model"); }, fragments);
}

TEST(BranchModel, ALaterInputIsACycleOrForwardReference) {
  expect_parse_error(std::string("layer c1 convolution outputs=2 kernel=1 input=c2\nlayer c2 convolution outputs=2 kernel=1\n") + kTail,
                     {"bad.model:4", "'c1'", "input 'c2' is defined after it, at line 5", "cycle"});
  expect_parse_error(std::string("layer c1 convolution outputs=2 kernel=1 input=c1\n") + kTail,
                     {"bad.model:4", "'c1' is the layer itself", "cycle"});
  expect_parse_error(std::string("layer c1 convolution outputs=2 kernel=1\nlayer sum add input=c1,nowhere\n") + kTail,
                     {"bad.model:5", "'sum'", "input 'nowhere' is not a layer defined before it"});
}

TEST(BranchModel, CountOfInputsFollowsTheType) {
  expect_parse_error(std::string("layer c1 convolution outputs=2 kernel=1\nlayer sum add input=c1\n") + kTail,
                     {"bad.model:5", "'sum' (add)", "reads 1 input", "2 or more inputs"});
  expect_parse_error(std::string("layer c1 convolution outputs=2 kernel=1\nlayer r relu input=c1,data\n") + kTail,
                     {"bad.model:5", "'r' (relu)", "reads 2 inputs", "reads 1 input"});
  expect_parse_error(std::string("layer c1 convolution outputs=2 kernel=1\nlayer sum add input=c1,,data\n") + kTail,
                     {"bad.model:5", "key 'input'", "comma-separated layer names"});
}

TEST(BranchModel, DataIsReservedForTheModelInput) {
  expect_parse_error(std::string("layer data convolution outputs=2 kernel=1\n") + kTail, {"bad.model:4", "'data' is reserved"});
}

TEST(BranchModel, GivenValuesReplaceTheDrawnOnesByName) {
  ModelSpec spec = parse_model(model_text(kBranchy), "b.model");
  const auto drawn = make_initial_parameters(spec, kernels::DType::f64, 1);
  GivenValues w{{3, 5}, {}};
  for (int i = 0; i < 15; ++i) w.values.push_back(0.25 * i);
  spec.given["f1.weight"] = w;
  const CheckedModel checked(spec);
  const auto given = make_initial_parameters(checked.spec(), kernels::DType::f64, 1);
  for (const auto& p : given) {
    if (p.name != "f1.weight") continue;
    for (int i = 0; i < 15; ++i) EXPECT_EQ(p.value.at(i), 0.25 * i);
  }
  EXPECT_EQ(given.front().name, drawn.front().name);
  EXPECT_EQ(given.front().value.at(0), drawn.front().value.at(0));  // the others as drawn

  ModelSpec unknown = spec;
  unknown.given["f9.weight"] = w;
  expect_error([&] { CheckedModel{unknown}; }, {"'f9.weight'", "no parameter or state tensor"});
  ModelSpec wrong = spec;
  wrong.given["f1.weight"] = GivenValues{{5, 3}, w.values};
  expect_error([&] { make_initial_parameters(wrong, kernels::DType::f32, 1); }, {"f1.weight", "[5, 3]", "[3, 5]"});
}

}  // namespace
}  // namespace ablate::models
