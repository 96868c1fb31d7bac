// Transforms: scale values in f32 and f64, the recorded names of every rule and of chains,
// shape rules, parsing and its errors.
#include "datasets/transforms.h"

#include <gtest/gtest.h>

#include "tests/datasets/expect_error.h"
#include "tests/datasets/transform_helpers.h"

namespace ablate::datasets {
namespace {

using testing::apply_to;
using testing::pattern_set;

// Three 1x2x2 images whose pixels are 0, 1, 128, 255 offset by the image index.
ImageSet tiny_set() { return testing::make_set("tiny", 1, 2, 2, {0, 1, 128, 255, 10, 11, 12, 13, 20, 21, 22, 23}); }

TEST(ScaleTransform, F32MatchesCaffeArithmetic) {
  ImageSet set = tiny_set();
  Transform t = scale_transform(1.0 / 256);
  EXPECT_EQ(t.name, "scale:0.00390625");
  EXPECT_FALSE(t.random);
  EXPECT_EQ(t.fitted, "");
  kernels::Tensor out({2, 1, 2, 2}, kernels::DType::f32);
  std::int64_t idx[2] = {2, 0};  // order follows idx
  t.apply(set, idx, 2, 0, out);
  const float* x = out.data<float>();
  const float factor = 1.0f / 256;
  for (int j = 0; j < 4; ++j) {
    EXPECT_EQ(x[j], static_cast<float>(set.pixels[8 + j]) * factor);
    EXPECT_EQ(x[4 + j], static_cast<float>(set.pixels[j]) * factor);
  }
  EXPECT_EQ(x[7], 255.0f / 256);
}

TEST(ScaleTransform, F64UsesTheDoubleFactor) {
  ImageSet set = tiny_set();
  Transform t = scale_transform(1.0 / 255);
  kernels::Tensor out({1, 1, 2, 2}, kernels::DType::f64);
  std::int64_t idx[1] = {0};
  t.apply(set, idx, 1, 0, out);
  EXPECT_EQ(out.data<double>()[3], 1.0);  // 255 * (1/255) rounds to exactly 1
  EXPECT_EQ(out.data<double>()[2], 128 * (1.0 / 255));
  EXPECT_NE(out.data<double>()[2], static_cast<double>(128 * (1.0f / 255)));  // not computed in f32
}

TEST(ScaleTransform, WrongOutputOrIndexIsAnError) {
  ImageSet set = tiny_set();
  Transform t = scale_transform(2);
  std::int64_t idx[2] = {0, 1};
  kernels::Tensor small({1, 1, 2, 2});
  EXPECT_ERROR_CONTAINS(std::invalid_argument, t.apply(set, idx, 2, 0, small), "scale:2", "f32[1, 1, 2, 2]",
                        "cannot hold 2 images of 1x2x2 from tiny");
  kernels::Tensor ints({2, 1, 2, 2}, kernels::DType::i32);
  EXPECT_ERROR_CONTAINS(std::invalid_argument, t.apply(set, idx, 2, 0, ints), "must be f32 or f64");
  std::int64_t bad[2] = {0, 3};
  kernels::Tensor out({2, 1, 2, 2});
  EXPECT_ERROR_CONTAINS(std::out_of_range, t.apply(set, bad, 2, 0, out), "image index 3", "tiny (3 images)");
}

TEST(ParseTransform, NumbersAndFractions) {
  ImageSet set = tiny_set();
  EXPECT_EQ(parse_transform("scale:0.00390625", set).name, "scale:0.00390625");
  EXPECT_EQ(parse_transform("scale:1/256", set).name, "scale:0.00390625");
  EXPECT_EQ(parse_transform("scale:1/255", set).name, scale_transform(1.0 / 255).name);
  EXPECT_EQ(parse_transform("scale:1", set).name, "scale:1");
  EXPECT_EQ(apply_to(parse_transform("scale:1/255", set), set, {0}).values[2], 128 * (1.0 / 255));
  // No rule of a scale-only spec fits, so an empty set will do.
  EXPECT_EQ(parse_transform("scale:2", ImageSet{}).name, "scale:2");
}

TEST(ParseTransform, EveryRuleRecordsItsCanonicalName) {
  ImageSet rgb = pattern_set("rgb", 4, 3, 8, 8);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"mean:image", "mean:image"},
      {"standardize:global", "standardize:global"},
      {"standardize:image", "standardize:image"},
      {"pad:2", "pad:2"},
      {"random_crop:6x5", "random_crop:6x5"},
      {"central_crop:06x5", "central_crop:6x5"},
      {"random_flip", "random_flip"},
      {"random_brightness:63.0", "random_brightness:63"},
      {"random_contrast:0.2,1.80", "random_contrast:0.2,1.8"},
      {"yuv_lcn:7", "yuv_lcn:7"},
      {"scale:1/2+pad:1+standardize:image", "scale:0.5+pad:1+standardize:image"},
  };
  for (const auto& [spec, name] : cases) EXPECT_EQ(parse_transform(spec, rgb).name, name) << spec;
}

TEST(ParseTransform, RandomAndFittedAreReported) {
  ImageSet rgb = pattern_set("rgb", 4, 3, 8, 8);
  EXPECT_FALSE(parse_transform("pad:2+central_crop:4x4+standardize:image", rgb).random);
  EXPECT_TRUE(parse_transform("central_crop:4x4+random_flip", rgb).random);
  EXPECT_TRUE(parse_transform("random_crop:8x8", rgb).random);
  EXPECT_TRUE(parse_transform("random_brightness:1", rgb).random);
  EXPECT_TRUE(parse_transform("random_contrast:1,2", rgb).random);
  EXPECT_EQ(parse_transform("scale:2+standardize:image", rgb).fitted, "");
  const Transform fitted = parse_transform("mean:image+standardize:global+yuv_lcn:3", rgb);
  EXPECT_NE(fitted.fitted.find("mean:image of 3x8x8"), std::string::npos) << fitted.fitted;
  EXPECT_NE(fitted.fitted.find("standardize:global mean"), std::string::npos) << fitted.fitted;
  EXPECT_NE(fitted.fitted.find("yuv_lcn:3 u mean"), std::string::npos) << fitted.fitted;
}

TEST(TransformShapes, PadCropAndChains) {
  ImageSet mnist = pattern_set("digits", 2, 1, 28, 28);
  auto shape = [](const Transform& t, int c, int h, int w) {
    t.output_shape(c, h, w);
    return std::to_string(c) + "x" + std::to_string(h) + "x" + std::to_string(w);
  };
  EXPECT_EQ(shape(parse_transform("pad:2", mnist), 1, 28, 28), "1x32x32");
  EXPECT_EQ(shape(parse_transform("pad:0", mnist), 1, 28, 28), "1x28x28");
  EXPECT_EQ(shape(parse_transform("random_crop:24x20", mnist), 1, 28, 28), "1x24x20");
  EXPECT_EQ(shape(parse_transform("central_crop:24x24", mnist), 3, 32, 32), "3x24x24");
  EXPECT_EQ(shape(parse_transform("pad:2+central_crop:30x31+standardize:image", mnist), 1, 28, 28), "1x30x31");
  EXPECT_EQ(shape(parse_transform("scale:1/255+random_flip+random_brightness:3", mnist), 1, 28, 28), "1x28x28");
  // The loader's output tensor follows the transform's shape.
  auto out = apply_to(parse_transform("pad:2", mnist), mnist, {0, 1});
  EXPECT_EQ(out.values.size(), 2u * 32 * 32);
}

TEST(TransformShapes, ImpossibleShapesAreErrorsNamingTheRule) {
  ImageSet mnist = pattern_set("digits", 2, 1, 28, 28);
  EXPECT_ERROR_CONTAINS(std::invalid_argument, parse_transform("random_crop:30x24", mnist), "random_crop:30x24",
                        "digits (1x28x28)", "window 30x24 is larger than the image 1x28x28", "at most 28x28");
  // A crop that only fits after padding is fine; one that does not fit after a smaller crop is not.
  EXPECT_NO_THROW(parse_transform("pad:2+central_crop:30x30", mnist));
  EXPECT_ERROR_CONTAINS(std::invalid_argument, parse_transform("central_crop:20x20+random_crop:24x24", mnist),
                        "random_crop:24x24", "larger than the image 1x20x20");
  EXPECT_ERROR_CONTAINS(std::invalid_argument, parse_transform("yuv_lcn:7", mnist), "yuv_lcn:7",
                        "needs RGB images (3 channels)", "1x28x28");
  // A set of another shape at apply time is checked as well.
  Transform crop = parse_transform("central_crop:24x24", mnist);
  ImageSet small = pattern_set("small", 1, 1, 20, 20);
  kernels::Tensor out({1, 1, 24, 24});
  std::int64_t idx[1] = {0};
  EXPECT_ERROR_CONTAINS(std::invalid_argument, crop.apply(small, idx, 1, 0, out), "central_crop:24x24",
                        "larger than the image 1x20x20");
}

TEST(ParseTransform, ErrorsNameTheSpecTheRuleAndWhatWasExpected) {
  ImageSet set = tiny_set();
  EXPECT_ERROR_CONTAINS(std::invalid_argument, parse_transform("blur:3", set), "'blur:3' is not known",
                        "rule 'blur'", "scale:F", "mean:image", "yuv_lcn:K");
  EXPECT_ERROR_CONTAINS(std::invalid_argument, parse_transform("", set), "'' is not known", "empty");
  EXPECT_ERROR_CONTAINS(std::invalid_argument, parse_transform("scale:1+", set), "'scale:1+'", "rule 2 is empty");
  EXPECT_ERROR_CONTAINS(std::invalid_argument, parse_transform("pad:2++scale:1", set), "rule 2 is empty");
  EXPECT_ERROR_CONTAINS(std::invalid_argument, parse_transform("scale:abc", set), "factor 'abc' is not a number");
  EXPECT_ERROR_CONTAINS(std::invalid_argument, parse_transform("scale:0.5x", set), "factor '0.5x'");
  EXPECT_ERROR_CONTAINS(std::invalid_argument, parse_transform("scale:1/0", set), "divides by 0");
  EXPECT_ERROR_CONTAINS(std::invalid_argument, parse_transform("scale", set), "'scale' needs an argument",
                        "a factor", "scale:F");
  EXPECT_ERROR_CONTAINS(std::invalid_argument, parse_transform("mean:128", set), "'mean:128'",
                        "argument '128' is not known", "mean:image");
  EXPECT_ERROR_CONTAINS(std::invalid_argument, parse_transform("standardize:batch", set), "argument 'batch'",
                        "standardize:global or standardize:image");
  EXPECT_ERROR_CONTAINS(std::invalid_argument, parse_transform("pad:-1", set), "padding '-1'", "integer >= 0");
  EXPECT_ERROR_CONTAINS(std::invalid_argument, parse_transform("random_crop:24", set), "window '24' has no 'x'");
  EXPECT_ERROR_CONTAINS(std::invalid_argument, parse_transform("central_crop:0x3", set), "height '0'",
                        "integer >= 1");
  EXPECT_ERROR_CONTAINS(std::invalid_argument, parse_transform("random_flip:0.5", set), "takes no argument");
  EXPECT_ERROR_CONTAINS(std::invalid_argument, parse_transform("random_brightness:-2", set),
                        "max delta -2 is negative");
  EXPECT_ERROR_CONTAINS(std::invalid_argument, parse_transform("random_contrast:1.8,0.2", set),
                        "range '1.8,0.2' is empty or negative");
  EXPECT_ERROR_CONTAINS(std::invalid_argument, parse_transform("random_contrast:1", set), "has no ','");
  EXPECT_ERROR_CONTAINS(std::invalid_argument, parse_transform("yuv_lcn:6", set), "kernel size 6 is even");
  // Rules fitted on the training set need images in it.
  EXPECT_ERROR_CONTAINS(std::invalid_argument, parse_transform("scale:2+mean:image", ImageSet{}), "mean:image",
                        "has no images");
}

TEST(ParseTransform, HelpListsEveryRule) {
  const std::string help = transform_rules_help();
  for (const char* rule : {"scale:F", "mean:image", "standardize:global|image", "pad:P", "random_crop:HxW",
                           "central_crop:HxW", "random_flip", "random_brightness:D", "random_contrast:L,U",
                           "yuv_lcn:K"})
    EXPECT_NE(help.find(rule), std::string::npos) << rule;
}

}  // namespace
}  // namespace ablate::datasets
