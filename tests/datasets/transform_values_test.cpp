// Exact values of the deterministic rules on tiny hand-made images: mean-image subtraction,
// global and per-image standardisation, zero padding, central crop, and RGB -> YUV with local
// contrastive normalisation checked against a direct 2-D computation.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "datasets/local_contrast.h"
#include "datasets/transforms.h"
#include "tests/datasets/transform_helpers.h"

namespace ablate::datasets {
namespace {

using testing::apply_to;
using testing::make_set;
using testing::pattern_set;

TEST(MeanImageRule, SubtractsTheTrainingMeanPerPositionInTheBatchType) {
  // Two 1x1x3 training images: mean image (2, 4.5, 255/2).
  ImageSet train = make_set("train", 1, 1, 3, {1, 4, 0, 3, 5, 255});
  Transform t = parse_transform("mean:image", train);
  ImageSet test = make_set("test", 1, 1, 3, {10, 0, 200});
  auto f32 = apply_to(t, test, {0}, 0, kernels::DType::f32);
  EXPECT_EQ(f32.values, (std::vector<double>{8.0, -4.5, 200.0f - 127.5f}));
  auto f64 = apply_to(t, train, {1, 0}, 0, kernels::DType::f64);
  EXPECT_EQ(f64.values, (std::vector<double>{1, 0.5, 127.5, -1, -0.5, -127.5}));
  // Sums of many pixels stay exact: a third image changes the mean to (5/3, ...).
  ImageSet three = make_set("three", 1, 1, 3, {1, 4, 0, 3, 5, 255, 1, 1, 1});
  auto v = apply_to(parse_transform("mean:image", three), three, {2}, 0, kernels::DType::f32).values;
  EXPECT_EQ(v[0], static_cast<double>(1.0f - static_cast<float>(5.0 / 3)));
}

TEST(MeanImageRule, AfterOtherRulesFitsWhatTheyGive) {
  ImageSet train = make_set("train", 1, 2, 2, {0, 2, 4, 6, 2, 4, 6, 8});
  // scale:0.5 first: the mean image is (0.5, 1.5, 2.5, 3.5).
  auto v = apply_to(parse_transform("scale:0.5+mean:image", train), train, {0}).values;
  EXPECT_EQ(v, (std::vector<double>{-0.5, -0.5, -0.5, -0.5}));
}

// Mean and std with divisor n - 1 of `values`, written out plainly.
std::pair<double, double> mean_std(const std::vector<double>& values) {
  const double n = static_cast<double>(values.size());
  const double mean = std::accumulate(values.begin(), values.end(), 0.0) / n;
  double ss = 0;
  for (double v : values) ss += (v - mean) * (v - mean);
  return {mean, std::sqrt(ss / (n - 1))};
}

TEST(GlobalStandardizeRule, TorchNormalizeGlobalOverPaddedImages) {
  ImageSet train = pattern_set("train", 5, 1, 3, 4);
  // The study's Torch MNIST input: pad 2, then the mean and std of every padded training value.
  Transform t = parse_transform("pad:2+standardize:global", train);
  std::vector<double> padded;
  for (int i = 0; i < 5; ++i)
    for (int y = 0; y < 7; ++y)
      for (int x = 0; x < 8; ++x) {
        const bool inside = y >= 2 && y < 5 && x >= 2 && x < 6;
        padded.push_back(inside ? train.image(i)[(y - 2) * 4 + (x - 2)] : 0.0);
      }
  const auto [mean, std] = mean_std(padded);
  ImageSet test = pattern_set("test", 2, 1, 3, 4, 9);
  for (auto dtype : {kernels::DType::f32, kernels::DType::f64}) {
    auto out = apply_to(t, test, {1}, 0, dtype);
    ASSERT_EQ(out.h, 7);
    ASSERT_EQ(out.w, 8);
    for (int y = 0; y < 7; ++y)
      for (int x = 0; x < 8; ++x) {
        const bool inside = y >= 2 && y < 5 && x >= 2 && x < 6;
        const double pixel = inside ? test.image(1)[(y - 2) * 4 + (x - 2)] : 0.0;
        const double expected = dtype == kernels::DType::f32
                                    ? static_cast<double>((static_cast<float>(pixel) - static_cast<float>(mean)) *
                                                          static_cast<float>(1.0 / std))
                                    : (pixel - mean) * (1.0 / std);
        // The rule accumulates its moments block by block: equal up to the last bits of m and s.
        EXPECT_NEAR(out.at(0, 0, y, x), expected, dtype == kernels::DType::f32 ? 1e-6 : 1e-13) << y << "," << x;
      }
  }
  EXPECT_NE(t.fitted.find("std"), std::string::npos);
}

TEST(GlobalStandardizeRule, ConstantTrainingSetIsAnError) {
  ImageSet flat = make_set("flat", 1, 1, 2, {7, 7, 7, 7});
  try {
    parse_transform("standardize:global", flat);
    ADD_FAILURE() << "did not throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("flat"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("std is 0"), std::string::npos) << e.what();
  }
}

TEST(ImageStandardizeRule, TfPerImageStandardization) {
  ImageSet set = make_set("set", 1, 2, 2, {0, 1, 2, 3, 0, 0, 0, 4, 5, 5, 5, 5});
  Transform t = parse_transform("standardize:image", set);
  auto out = apply_to(t, set, {0, 1, 2});
  // Image 0: mean 1.5, variance 1.25 > 1/4: divide by sqrt(1.25).
  for (int j = 0; j < 4; ++j) EXPECT_DOUBLE_EQ(out.values[j], (j - 1.5) / std::sqrt(1.25));
  // Image 1: mean 1, variance 3 -> std 1.732 > 0.5.
  EXPECT_DOUBLE_EQ(out.values[7], 3 / std::sqrt(3.0));
  // Image 2 is constant: std 0 is raised to 1/sqrt(4) and every value becomes 0.
  for (int j = 8; j < 12; ++j) EXPECT_EQ(out.values[j], 0.0);
  // A small spread: values 0,0,0,1 out of 255 scale; std 0.433 < 1/sqrt(4) = 0.5 is raised.
  ImageSet low = make_set("low", 1, 2, 2, {0, 0, 0, 1});
  auto v = apply_to(t, low, {0}).values;
  EXPECT_DOUBLE_EQ(v[3], (1 - 0.25) / 0.5);
  EXPECT_DOUBLE_EQ(v[0], -0.25 / 0.5);
}

TEST(PadRule, ZerosAroundTheImageInEveryChannel) {
  ImageSet set = make_set("rgb", 2, 1, 2, {1, 2, 3, 4});
  auto out = apply_to(parse_transform("pad:1", set), set, {0});
  ASSERT_EQ(out.h, 3);
  ASSERT_EQ(out.w, 4);
  EXPECT_EQ(out.values, (std::vector<double>{0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 0,  //
                                             0, 0, 0, 0, 0, 3, 4, 0, 0, 0, 0, 0}));
}

TEST(CentralCropRule, TakesTheMiddleWindowRoundedDown) {
  std::vector<std::uint8_t> px(20);
  std::iota(px.begin(), px.end(), 0);  // 1x4x5, pixel = 5 y + x
  ImageSet set = make_set("grid", 1, 4, 5, px);
  auto out = apply_to(parse_transform("central_crop:2x2", set), set, {0});
  // Offsets (4-2)/2 = 1 and (5-2)/2 = 1.
  EXPECT_EQ(out.values, (std::vector<double>{6, 7, 11, 12}));
  auto odd = apply_to(parse_transform("central_crop:3x4", set), set, {0});
  EXPECT_EQ(odd.values, (std::vector<double>{0, 1, 2, 3, 5, 6, 7, 8, 10, 11, 12, 13}));
  EXPECT_EQ(apply_to(parse_transform("central_crop:4x5", set), set, {0}).values, std::vector<double>(px.begin(), px.end()));
}

// ---- yuv_lcn against a direct computation ----------------------------------------------------

TEST(LocalContrast, TorchGaussian1D) {
  // image.gaussian1D(7): centre 4, sigma*size = 1.75.
  auto g = torch_gaussian1d(7);
  ASSERT_EQ(g.size(), 7u);
  EXPECT_DOUBLE_EQ(g[3], 1.0);
  EXPECT_DOUBLE_EQ(g[0], std::exp(-0.5 * (3 / 1.75) * (3 / 1.75)));
  EXPECT_DOUBLE_EQ(g[5], std::exp(-0.5 * (2 / 1.75) * (2 / 1.75)));
}

// LCN of an h x w plane with the 2-D kernel K = k k^T written out, weights summed over the
// in-image window for the border coefficient.
std::vector<double> direct_lcn(const std::vector<double>& x, int h, int w, int size) {
  auto g = torch_gaussian1d(size);
  const double total = std::accumulate(g.begin(), g.end(), 0.0);
  const int half = size / 2;
  auto filter = [&](const std::vector<double>& in, std::vector<double>& coef) {
    std::vector<double> out(in.size());
    coef.assign(in.size(), 0.0);
    for (int y = 0; y < h; ++y)
      for (int xx = 0; xx < w; ++xx)
        for (int a = 0; a < size; ++a)
          for (int b = 0; b < size; ++b) {
            const int yy = y + a - half, xb = xx + b - half;
            if (yy < 0 || yy >= h || xb < 0 || xb >= w) continue;
            const double weight = g[a] / total * g[b] / total;
            out[y * w + xx] += weight * in[yy * w + xb];
            coef[y * w + xx] += weight;
          }
    return out;
  };
  std::vector<double> coef;
  auto local_mean = filter(x, coef);
  std::vector<double> z(x.size()), z2(x.size());
  for (std::size_t j = 0; j < x.size(); ++j) {
    z[j] = x[j] - local_mean[j] / coef[j];
    z2[j] = z[j] * z[j];
  }
  auto local_sq = filter(z2, coef);
  std::vector<double> out(x.size());
  for (std::size_t j = 0; j < x.size(); ++j) out[j] = z[j] / std::max(std::sqrt(local_sq[j]) / coef[j], 1e-4);
  return out;
}

TEST(YuvLcnRule, MatchesADirectComputationOfTheTorchScript) {
  const int h = 9, w = 8, size = 7;
  ImageSet train = pattern_set("train", 3, 3, h, w, 2);
  ImageSet test = pattern_set("test", 2, 3, h, w, 5);
  Transform t = parse_transform("yuv_lcn:7", train);
  // U and V statistics of the training set, every value of every image.
  std::vector<double> us, vs;
  auto yuv = [&](const ImageSet& set, int i, int j, double& y, double& u, double& v) {
    const std::uint8_t* p = set.image(i);
    const double r = p[j], g = p[h * w + j], b = p[2 * h * w + j];
    y = 0.299 * r + 0.587 * g + 0.114 * b;
    u = -0.14713 * r - 0.28886 * g + 0.436 * b;
    v = 0.615 * r - 0.51499 * g - 0.10001 * b;
  };
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < h * w; ++j) {
      double y, u, v;
      yuv(train, i, j, y, u, v);
      us.push_back(u);
      vs.push_back(v);
    }
  const auto [mu, su] = mean_std(us);
  const auto [mv, sv] = mean_std(vs);
  auto out = apply_to(t, test, {1});
  std::vector<double> ys(static_cast<std::size_t>(h * w));
  for (int j = 0; j < h * w; ++j) {
    double y, u, v;
    yuv(test, 1, j, y, u, v);
    ys[j] = y;
    EXPECT_NEAR(out.values[h * w + j], (u - mu) / -su, 1e-12) << "U " << j;  // the script divides by -std
    EXPECT_NEAR(out.values[2 * h * w + j], (v - mv) / -sv, 1e-12) << "V " << j;
  }
  auto expected_y = direct_lcn(ys, h, w, size);
  for (int j = 0; j < h * w; ++j) EXPECT_NEAR(out.values[j], expected_y[j], 1e-10) << "Y " << j;
}

TEST(YuvLcnRule, FlatPlaneHitsTheThreshold) {
  // A constant plane: z = 0 everywhere, the local std 0 is raised to 1e-4, output 0.
  std::vector<double> flat(25, 3.0), out(25);
  spatial_contrastive_normalization(flat.data(), 5, 5, torch_gaussian1d(3), out.data());
  for (double v : out) EXPECT_NEAR(v, 0.0, 1e-9);
  // One bright pixel: positive at it, negative around it.
  std::vector<double> spot(25, 0.0);
  spot[12] = 10;
  spatial_contrastive_normalization(spot.data(), 5, 5, torch_gaussian1d(3), out.data());
  EXPECT_GT(out[12], 0);
  EXPECT_LT(out[11], 0);
  EXPECT_LT(out[7], 0);
}

}  // namespace
}  // namespace ablate::datasets
