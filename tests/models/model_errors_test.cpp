// Every malformed model gives an error naming "file:line" and the problem.
#include <gtest/gtest.h>

#include "models/model_spec.h"
#include "error_expectations.h"

namespace ablate::models {
namespace {

using testing::expect_error;

// Lines 1-3 are the header; `layers` start at line 4.
std::string model_text(const std::string& layers) {
  return "model m\n"
         "input 1 8 8\n"
         "classes 3\n" +
         layers;
}

void expect_model_error(const std::string& text, const std::vector<std::string>& fragments) {
  expect_error([&] { parse_model(text, "bad.model"); }, fragments);
}

const char* kTail = "layer f1 inner_product outputs=3\nlayer loss softmax_loss\n";

TEST(ModelErrors, ValidBaselineParses) {
  EXPECT_NO_THROW(parse_model(model_text(std::string("layer c1 convolution outputs=2 kernel=3\n") + kTail), "ok.model"));
}

TEST(ModelErrors, UnknownLayerTypeListsTheKnownTypes) {
  expect_model_error(model_text(std::string("layer c1 conv outputs=2 kernel=3\n") + kTail),
                     {"bad.model:4:", "unknown layer type 'conv'", "convolution", "pooling", "softmax_loss"});
}

TEST(ModelErrors, UnknownKeyListsTheAcceptedKeys) {
  expect_model_error(model_text(std::string("layer p1 pooling kernel=2 outputs=3\n") + kTail),
                     {"bad.model:4:", "p1", "unknown key 'outputs'", "mode", "kernel", "stride", "padding"});
  expect_model_error(model_text(std::string("layer r1 relu keep=0.5\n") + kTail),
                     {"bad.model:4:", "unknown key 'keep'", "accepted: input"});
}

TEST(ModelErrors, MalformedNumbers) {
  expect_model_error(model_text(std::string("layer c1 convolution outputs=2x kernel=3\n") + kTail),
                     {"bad.model:4:", "outputs", "'2x'", "not an integer"});
  expect_model_error(model_text(std::string("layer n1 lrn alpha=1e-4q\n") + kTail),
                     {"bad.model:4:", "alpha", "'1e-4q'", "not a number"});
  expect_model_error(model_text(std::string("layer c1 convolution outputs=2 kernel=3 weight_lr_mult=fast\n") + kTail),
                     {"bad.model:4:", "weight_lr_mult", "'fast'", "not a number"});
  expect_model_error("model m\ninput 1 x 8\nclasses 3\n", {"bad.model:2:", "input", "'x'"});
  expect_model_error("model m\ninput 1 8 8\nclasses ten\n", {"bad.model:3:", "classes", "'ten'"});
}

TEST(ModelErrors, DuplicateLayerName) {
  expect_model_error(model_text("layer c1 convolution outputs=2 kernel=3\n"
                                "layer c1 relu\n" +
                                std::string(kTail)),
                     {"bad.model:5:", "duplicate layer name 'c1'"});
}

TEST(ModelErrors, InputMustNameAnEarlierLayer) {
  expect_model_error(model_text("layer c1 convolution outputs=2 kernel=3 input=r1\n"
                                "layer r1 relu\n" +
                                std::string(kTail)),
                     {"bad.model:4:", "input 'r1'", "is defined after it, at line 5", "a layer reads only layers defined before it"});
  expect_model_error(model_text("layer c1 convolution outputs=2 kernel=3\n"
                                "layer r1 relu input=nowhere\n" +
                                std::string(kTail)),
                     {"bad.model:5:", "input 'nowhere'"});
}

TEST(ModelErrors, MissingHeaderLines) {
  const std::string layers = std::string("layer c1 convolution outputs=2 kernel=3\n") + kTail;
  expect_model_error("input 1 8 8\nclasses 3\n" + layers, {"bad.model:", "missing 'model NAME'"});
  expect_model_error("model m\nclasses 3\n" + layers, {"bad.model:", "missing 'input C H W'"});
  expect_model_error("model m\ninput 1 8 8\n" + layers, {"bad.model:5:", "missing 'classes K'"});
  expect_model_error(model_text(""), {"bad.model:", "has no layers"});
}

TEST(ModelErrors, HeaderLinesMustBeWellFormedAndUnique) {
  expect_model_error("model m\nmodel n\n", {"bad.model:2:", "'model' is given twice"});
  expect_model_error("model m\ninput 1 8\n", {"bad.model:2:", "input C H W"});
  expect_model_error("model m\ninput 0 8 8\n", {"bad.model:2:", "positive integer", "'0'"});
  expect_model_error("model m\nnetwork x\n", {"bad.model:2:", "unknown statement 'network'"});
}

TEST(ModelErrors, TheLastLayerMustBeALoss) {
  expect_model_error(model_text("layer c1 convolution outputs=2 kernel=3\n"
                                "layer f1 inner_product outputs=3\n"),
                     {"bad.model:5:", "must end with a loss layer", "'f1'"});
  expect_model_error(model_text("layer f1 inner_product outputs=3\n"
                                "layer ls log_softmax\n"),
                     {"bad.model:5:", "must end with a loss layer", "log_softmax"});
  expect_model_error(model_text("layer f1 inner_product outputs=3\n"
                                "layer loss softmax_loss\n"
                                "layer r1 relu\n"),
                     {"bad.model:5:", "'loss'", "must be the last layer"});
}

TEST(ModelErrors, NonPositiveOutputsKernelStride) {
  expect_model_error(model_text(std::string("layer c1 convolution outputs=0 kernel=3\n") + kTail),
                     {"bad.model:4:", "outputs", "positive integer", "'0'"});
  expect_model_error(model_text(std::string("layer c1 convolution outputs=2 kernel=-1\n") + kTail),
                     {"bad.model:4:", "kernel", "positive integer", "'-1'"});
  expect_model_error(model_text(std::string("layer p1 pooling kernel=2 stride=0\n") + kTail),
                     {"bad.model:4:", "stride", "positive integer", "'0'"});
  expect_model_error(model_text("layer f1 inner_product outputs=-3\nlayer loss softmax_loss\n"),
                     {"bad.model:4:", "outputs", "'-3'"});
}

TEST(ModelErrors, KeepMustBeInZeroOne) {
  for (const char* keep : {"0", "1.5", "-0.5"})
    expect_model_error(model_text(std::string("layer d1 dropout keep=") + keep + "\n" + kTail),
                       {"bad.model:4:", "keep", "(0, 1]", std::string("'") + keep + "'"});
  EXPECT_NO_THROW(parse_model(model_text(std::string("layer d1 dropout keep=1\n") + kTail), "ok.model"));
}

TEST(ModelErrors, KeysThatDoNotFitTogether) {
  expect_model_error(model_text(std::string("layer c1 convolution kernel=3\n") + kTail),
                     {"bad.model:4:", "needs key 'outputs'"});
  expect_model_error(model_text(std::string("layer c1 convolution outputs=2 kernel_h=3\n") + kTail),
                     {"bad.model:4:", "kernel_w"});
  expect_model_error(model_text(std::string("layer c1 convolution outputs=2 kernel=3 padding=same pad=1\n") + kTail),
                     {"bad.model:4:", "'pad'", "padding=same"});
  expect_model_error(model_text(std::string("layer p1 pooling stride=2\n") + kTail),
                     {"bad.model:4:", "needs key 'kernel'"});
  expect_model_error(model_text(std::string("layer p1 pooling kernel=2 padding=tf_same pad=1\n") + kTail),
                     {"bad.model:4:", "tf_same"});
  expect_model_error(model_text("layer f1 inner_product outputs=3 bias=false bias_lr_mult=2\nlayer loss softmax_loss\n"),
                     {"bad.model:4:", "bias_lr_mult", "bias=false"});
}

TEST(ModelErrors, BadValuesAndTokens) {
  expect_model_error(model_text(std::string("layer p1 pooling kernel=2 mode=median\n") + kTail),
                     {"bad.model:4:", "mode", "max|avg", "'median'"});
  expect_model_error(model_text(std::string("layer c1 convolution outputs=2 kernel=3 bias=yes\n") + kTail),
                     {"bad.model:4:", "bias", "true or false", "'yes'"});
  expect_model_error(model_text(std::string("layer c1 convolution outputs=2 kernel=3 weight_init=he\n") + kTail),
                     {"bad.model:4:", "weight_init", "unknown rule 'he'", "xavier", "truncated_normal:STD"});
  expect_model_error(model_text(std::string("layer c1 convolution outputs=2 kernel=3 weight_init=gaussian\n") + kTail),
                     {"bad.model:4:", "gaussian", "needs an argument"});
  expect_model_error(model_text(std::string("layer n1 lrn size=4\n") + kTail),
                     {"bad.model:4:", "size", "odd positive integer", "'4'"});
  expect_model_error(model_text(std::string("layer c1 convolution outputs=2 outputs=3 kernel=3\n") + kTail),
                     {"bad.model:4:", "'outputs' is given twice"});
  expect_model_error(model_text(std::string("layer c1 convolution outputs=2 kernel\n") + kTail),
                     {"bad.model:4:", "key=value", "'kernel'"});
  expect_model_error(model_text(std::string("layer c.1 relu\n") + kTail), {"bad.model:4:", "'c.1'"});
  expect_model_error(model_text(std::string("layer c1\n") + kTail), {"bad.model:4:", "layer NAME TYPE"});
}

}  // namespace
}  // namespace ablate::models
