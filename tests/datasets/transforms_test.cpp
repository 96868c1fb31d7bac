// Transforms: scale values in f32 and f64, the recorded name, parsing and its errors.
#include "datasets/transforms.h"

#include <gtest/gtest.h>

#include "tests/datasets/expect_error.h"

namespace ablate::datasets {
namespace {

// Three 1x2x2 images whose pixels are 0, 1, 128, 255 offset by the image index.
ImageSet tiny_set() {
  ImageSet set;
  set.name = "tiny";
  set.channels = 1, set.height = 2, set.width = 2, set.classes = 3;
  set.pixels = {0, 1, 128, 255, 10, 11, 12, 13, 20, 21, 22, 23};
  set.labels = {0, 1, 2};
  return set;
}

TEST(ScaleTransform, F32MatchesCaffeArithmetic) {
  ImageSet set = tiny_set();
  Transform t = scale_transform(1.0 / 256);
  EXPECT_EQ(t.name, "scale:0.00390625");
  kernels::Tensor out({2, 1, 2, 2}, kernels::DType::f32);
  std::int64_t idx[2] = {2, 0};  // order follows idx
  t.apply(set, idx, 2, out);
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
  t.apply(set, idx, 1, out);
  EXPECT_EQ(out.data<double>()[3], 1.0);  // 255 * (1/255) rounds to exactly 1
  EXPECT_EQ(out.data<double>()[2], 128 * (1.0 / 255));
  EXPECT_NE(out.data<double>()[2], static_cast<double>(128 * (1.0f / 255)));  // not computed in f32
}

TEST(ScaleTransform, WrongOutputOrIndexIsAnError) {
  ImageSet set = tiny_set();
  Transform t = scale_transform(2);
  std::int64_t idx[2] = {0, 1};
  kernels::Tensor small({1, 1, 2, 2});
  EXPECT_ERROR_CONTAINS(std::invalid_argument, t.apply(set, idx, 2, small), "scale:2", "f32[1, 1, 2, 2]",
                        "cannot hold 2 images of 1x2x2 from tiny");
  kernels::Tensor ints({2, 1, 2, 2}, kernels::DType::i32);
  EXPECT_ERROR_CONTAINS(std::invalid_argument, t.apply(set, idx, 2, ints), "must be f32 or f64");
  std::int64_t bad[2] = {0, 3};
  kernels::Tensor out({2, 1, 2, 2});
  EXPECT_ERROR_CONTAINS(std::out_of_range, t.apply(set, bad, 2, out), "image index 3", "tiny (3 images)");
}

TEST(ParseTransform, NumbersAndFractions) {
  EXPECT_EQ(parse_transform("scale:0.00390625").name, "scale:0.00390625");
  EXPECT_EQ(parse_transform("scale:1/256").name, "scale:0.00390625");
  EXPECT_EQ(parse_transform("scale:1/255").name, scale_transform(1.0 / 255).name);
  EXPECT_EQ(parse_transform("scale:1").name, "scale:1");
  ImageSet set = tiny_set();
  kernels::Tensor out({1, 1, 2, 2}, kernels::DType::f64);
  std::int64_t idx[1] = {0};
  parse_transform("scale:1/255").apply(set, idx, 1, out);
  EXPECT_EQ(out.data<double>()[2], 128 * (1.0 / 255));
}

TEST(ParseTransform, ErrorsNameTheRule) {
  EXPECT_ERROR_CONTAINS(std::invalid_argument, parse_transform("mean:128"), "'mean:128' is not known",
                        "rule 'mean'", "scale:F");
  EXPECT_ERROR_CONTAINS(std::invalid_argument, parse_transform(""), "'' is not known");
  EXPECT_ERROR_CONTAINS(std::invalid_argument, parse_transform("scale:abc"), "factor 'abc' is not a number");
  EXPECT_ERROR_CONTAINS(std::invalid_argument, parse_transform("scale:0.5x"), "factor '0.5x'");
  EXPECT_ERROR_CONTAINS(std::invalid_argument, parse_transform("scale:1/0"), "divides by 0");
  EXPECT_ERROR_CONTAINS(std::invalid_argument, parse_transform("scale"), "needs a factor");
}

}  // namespace
}  // namespace ablate::datasets
