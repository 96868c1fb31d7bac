// Synthetic set: deterministic for a seed, varied across seeds, and learnable.
#include "datasets/synthetic.h"

#include <gtest/gtest.h>

#include "tests/datasets/expect_error.h"
#include "tests/datasets/nearest_mean.h"

namespace ablate::datasets {
namespace {

TEST(Synthetic, ShapeAndLabels) {
  ImageSet set = make_synthetic(500, 3, 9, 11, 7, 5, "syn");
  EXPECT_EQ(set.name, "syn");
  EXPECT_EQ(set.count(), 500);
  EXPECT_EQ(set.channels, 3);
  EXPECT_EQ(set.height, 9);
  EXPECT_EQ(set.width, 11);
  EXPECT_EQ(set.classes, 7);
  EXPECT_EQ(set.pixels.size(), 500u * 3 * 9 * 11);
  std::vector<int> per_class(7, 0);
  for (auto label : set.labels) {
    ASSERT_GE(label, 0);
    ASSERT_LT(label, 7);
    ++per_class[label];
  }
  for (int k = 0; k < 7; ++k) EXPECT_GT(per_class[k], 500 / 7 / 2) << "class " << k;
  // Pixels spread over the byte range (noise and prototypes), not constant.
  int low = 0, high = 0;
  for (auto p : set.pixels) low += p < 64, high += p > 192;
  EXPECT_GT(low, static_cast<int>(set.pixels.size() / 10));
  EXPECT_GT(high, static_cast<int>(set.pixels.size() / 10));
}

TEST(Synthetic, SameSeedSameSetOtherSeedOtherSet) {
  ImageSet a = make_synthetic(200, 1, 28, 28, 10, 42);
  ImageSet b = make_synthetic(200, 1, 28, 28, 10, 42);
  ImageSet c = make_synthetic(200, 1, 28, 28, 10, 43);
  EXPECT_EQ(a.pixels, b.pixels);
  EXPECT_EQ(a.labels, b.labels);
  EXPECT_NE(a.pixels, c.pixels);
  EXPECT_NE(a.labels, c.labels);
  // A longer set starts with the shorter one: count does not change the stream.
  ImageSet longer = make_synthetic(300, 1, 28, 28, 10, 42);
  EXPECT_TRUE(std::equal(a.pixels.begin(), a.pixels.end(), longer.pixels.begin()));
}

TEST(Synthetic, ClassesAreLearnable) {
  ImageSet train = make_synthetic(1200, 1, 28, 28, 10, 7);
  ImageSet test = split_tail(train, 200, "syn/test");
  EXPECT_GT(testing::nearest_mean_accuracy(train, test), 0.95);
  // Against shuffled labels the same classifier is near chance: the signal is in the labels.
  ImageSet shuffled = train;
  std::rotate(shuffled.labels.begin(), shuffled.labels.begin() + 1, shuffled.labels.end());
  EXPECT_LT(testing::nearest_mean_accuracy(shuffled, test), 0.3);
}

TEST(Synthetic, BadArgumentsNameTheField) {
  EXPECT_ERROR_CONTAINS(std::invalid_argument, make_synthetic(-1, 1, 2, 2, 2, 1, "s"), "s: count -1");
  EXPECT_ERROR_CONTAINS(std::invalid_argument, make_synthetic(4, 0, 2, 2, 2, 1, "s"), "channels 0", "expected > 0");
  EXPECT_ERROR_CONTAINS(std::invalid_argument, make_synthetic(4, 1, 2, 2, 0, 1, "s"), "classes 0");
  EXPECT_EQ(make_synthetic(0, 1, 2, 2, 2, 1).count(), 0);
}

}  // namespace
}  // namespace ablate::datasets
