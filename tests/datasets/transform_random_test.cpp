// The random rules (TF CIFAR-10's training distortions): each does what it says, the same
// seed and draw give the same batch, another draw, seed or batch position another one, and the
// loader's batches repeat with prefetch on or off.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "datasets/loader.h"
#include "datasets/transforms.h"
#include "tests/datasets/transform_helpers.h"

namespace ablate::datasets {
namespace {

using testing::apply_to;
using testing::make_set;
using testing::pattern_set;

const char* kTfTraining = "random_crop:8x8+random_flip+random_brightness:63+random_contrast:0.2,1.8+standardize:image";

TEST(RandomRules, SameSeedAndDrawGiveTheSameBatch) {
  ImageSet set = pattern_set("rgb", 6, 3, 12, 12);
  Transform a = parse_transform(kTfTraining, set, 42), again = parse_transform(kTfTraining, set, 42);
  Transform other_seed = parse_transform(kTfTraining, set, 43);
  EXPECT_TRUE(a.random);
  const std::vector<std::int64_t> idx = {0, 3, 5};
  for (auto dtype : {kernels::DType::f32, kernels::DType::f64}) {
    auto first = apply_to(a, set, idx, 7, dtype);
    EXPECT_EQ(first.values, apply_to(a, set, idx, 7, dtype).values);
    EXPECT_EQ(first.values, apply_to(again, set, idx, 7, dtype).values);
    EXPECT_NE(first.values, apply_to(a, set, idx, 8, dtype).values);
    EXPECT_NE(first.values, apply_to(other_seed, set, idx, 7, dtype).values);
  }
  // The same image at two positions of one batch is distorted differently.
  auto twice = apply_to(a, set, {2, 2}, 0);
  EXPECT_NE(twice.image(0), twice.image(1));
  // A sample's choices depend on its position, not on the rest of the batch.
  EXPECT_EQ(apply_to(a, set, {4, 1}, 3).image(0), apply_to(a, set, {4, 2, 5}, 3).image(0));
}

TEST(RandomRules, TfTrainingChainEndsStandardized) {
  ImageSet set = pattern_set("rgb", 4, 3, 12, 12);
  auto out = apply_to(parse_transform(kTfTraining, set), set, {0, 1, 2, 3}, 5);
  for (int i = 0; i < 4; ++i) {
    auto v = out.image(i);
    const double mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
    double ss = 0;
    for (double x : v) ss += (x - mean) * (x - mean);
    EXPECT_NEAR(mean, 0.0, 1e-9);
    EXPECT_NEAR(ss / static_cast<double>(v.size()), 1.0, 1e-9);
  }
}

TEST(RandomFlipRule, MirrorsRowsOrLeavesTheImage) {
  ImageSet set = make_set("img", 2, 2, 3, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  const std::vector<double> same = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  const std::vector<double> mirrored = {3, 2, 1, 6, 5, 4, 9, 8, 7, 12, 11, 10};
  Transform t = parse_transform("random_flip", set, 3);
  int flips = 0;
  for (std::uint64_t draw = 0; draw < 64; ++draw) {
    auto v = apply_to(t, set, {0}, draw).values;
    ASSERT_TRUE(v == same || v == mirrored) << "draw " << draw;
    flips += v == mirrored;
  }
  EXPECT_GT(flips, 16);  // about half of 64
  EXPECT_LT(flips, 48);
}

TEST(RandomCropRule, EveryOffsetIsAWindowOfTheImageAndAllOccur) {
  std::vector<std::uint8_t> px(16);
  std::iota(px.begin(), px.end(), 0);  // 1x4x4, pixel = 4 y + x
  ImageSet set = make_set("grid", 1, 4, 4, px);
  Transform t = parse_transform("random_crop:3x2", set, 9);
  std::set<std::pair<int, int>> offsets;
  for (std::uint64_t draw = 0; draw < 64; ++draw) {
    auto v = apply_to(t, set, {0}, draw).values;
    ASSERT_EQ(v.size(), 6u);
    const int top = static_cast<int>(v[0]) / 4, left = static_cast<int>(v[0]) % 4;
    ASSERT_LE(top, 1);
    ASSERT_LE(left, 2);
    for (int y = 0; y < 3; ++y)
      for (int x = 0; x < 2; ++x) ASSERT_EQ(v[y * 2 + x], (top + y) * 4 + left + x);
    offsets.insert({top, left});
  }
  EXPECT_EQ(offsets.size(), 6u);  // rows 0..1 x columns 0..2
}

TEST(RandomBrightnessRule, AddsOneDeltaPerImageWithinTheRange) {
  ImageSet set = pattern_set("rgb", 1, 3, 4, 4);
  Transform t = parse_transform("random_brightness:63", set, 5);
  std::set<double> deltas;
  for (std::uint64_t draw = 0; draw < 20; ++draw) {
    auto v = apply_to(t, set, {0}, draw).values;
    const double delta = v[0] - set.pixels[0];
    EXPECT_GE(delta, -63.0);
    EXPECT_LT(delta, 63.0);
    for (std::size_t j = 0; j < v.size(); ++j) ASSERT_NEAR(v[j] - set.pixels[j], delta, 1e-9);
    deltas.insert(delta);
  }
  EXPECT_EQ(deltas.size(), 20u);
}

TEST(RandomContrastRule, ScalesDeviationsFromEachChannelMeanByOneFactor) {
  ImageSet set = pattern_set("rgb", 1, 3, 4, 4);
  Transform t = parse_transform("random_contrast:0.2,1.8", set, 5);
  const int plane = 16;
  for (std::uint64_t draw = 0; draw < 10; ++draw) {
    auto v = apply_to(t, set, {0}, draw).values;
    double factor = std::nan("");
    for (int c = 0; c < 3; ++c) {
      const std::uint8_t* p = set.image(0) + c * plane;
      const double mean = std::accumulate(p, p + plane, 0.0) / plane;
      double out_mean = 0;
      for (int j = 0; j < plane; ++j) out_mean += v[c * plane + j] / plane;
      EXPECT_NEAR(out_mean, mean, 1e-9);
      for (int j = 0; j < plane; ++j) {
        if (std::abs(p[j] - mean) < 1) continue;
        const double f = (v[c * plane + j] - mean) / (p[j] - mean);
        if (std::isnan(factor)) factor = f;
        EXPECT_NEAR(f, factor, 1e-9);
      }
    }
    EXPECT_GE(factor, 0.2);
    EXPECT_LT(factor, 1.8);
  }
}

TEST(RandomRules, FittingAfterARandomRuleIsRepeatable) {
  ImageSet set = pattern_set("rgb", 5, 3, 10, 10);
  const std::string spec = "random_crop:8x8+random_flip+standardize:global";
  Transform a = parse_transform(spec, set, 1), b = parse_transform(spec, set, 1);
  EXPECT_EQ(a.fitted, b.fitted);
  EXPECT_EQ(apply_to(a, set, {0, 1}, 2).values, apply_to(b, set, {0, 1}, 2).values);
}

TEST(RandomRules, LoaderBatchesRepeatWithPrefetchOnAndOff) {
  // One image, batch 2, no shuffling: every batch holds the same image twice, so any difference
  // between batches comes from the draw.
  ImageSet set = pattern_set("one", 1, 3, 6, 6);
  Transform t = parse_transform("random_crop:4x4+random_flip+random_brightness:10", set, 11);
  std::vector<std::vector<double>> batches[2];
  for (bool prefetch : {true, false}) {
    LoaderOptions o;
    o.batch = 2, o.shuffle = false, o.seed = 11, o.prefetch = prefetch, o.dtype = kernels::DType::f64;
    BatchLoader loader(set, t, o);
    for (int j = 0; j < 5; ++j) {
      Batch b = loader.next();
      EXPECT_EQ(b.x.describe(), "f64[2, 3, 4, 4]");
      std::vector<double> v;
      for (std::int64_t k = 0; k < b.x.numel(); ++k) v.push_back(b.x.at(k));
      batches[prefetch].push_back(v);
    }
  }
  EXPECT_EQ(batches[0], batches[1]);
  for (int j = 1; j < 5; ++j) EXPECT_NE(batches[1][j], batches[1][0]) << "batch " << j;
  // Batch j is the transform's draw j.
  EXPECT_EQ(batches[1][3], apply_to(t, set, {0, 0}, 3).values);
}

}  // namespace
}  // namespace ablate::datasets
