// The interleaved rounds' ratio of `compare --with-real --real-rounds` (interleaved_ratio.h):
// the mean of the rounds' ratios, a failed round counted and left out, the interval over the
// rounds, the text.
#include <gtest/gtest.h>

#include <cmath>

#include "bench/experiments/interleaved_ratio.h"
#include "bench/experiments/sample_median.h"

namespace ablate::bench::experiments {
namespace {

TEST(InterleavedRatio, TheMeanOfTheRoundsRatiosWithTheirRangeAndInterval) {
  const InterleavedRatio r = interleaved_ratio({2000, 3000, 2500}, {1000, 1500, 1000});
  EXPECT_EQ(r.rounds, 3);
  EXPECT_EQ(r.failed, 0);
  EXPECT_DOUBLE_EQ(r.ratio, (2.0 + 2.0 + 2.5) / 3);
  EXPECT_DOUBLE_EQ(r.lowest, 2.0);
  EXPECT_DOUBLE_EQ(r.highest, 2.5);
  EXPECT_DOUBLE_EQ(r.ablate_median, 2500);
  EXPECT_DOUBLE_EQ(r.real_median, 1000);
  ASSERT_TRUE(r.interval.ok);
  EXPECT_LE(r.interval.low, r.ratio);
  EXPECT_GE(r.interval.high, r.ratio);
  EXPECT_GE(r.interval.low, 2.0);
  EXPECT_LE(r.interval.high, 2.5);
  EXPECT_LT(r.interval.low, r.interval.high);
}

// A machine twice as fast in the second round moves both sides of it: each round's ratio is the
// same, so the figure is exact, where the ratio of the two sides' fastest and slowest runs taken
// apart would be off by 2x either way.
TEST(InterleavedRatio, ADriftBetweenRoundsReachesBothSidesOfARoundAlike) {
  const InterleavedRatio r = interleaved_ratio({1300, 2600}, {1000, 2000});
  EXPECT_DOUBLE_EQ(r.ratio, 1.3);
  EXPECT_DOUBLE_EQ(r.lowest, 1.3);
  EXPECT_DOUBLE_EQ(r.highest, 1.3);
}

TEST(InterleavedRatio, ARoundWhereASideFailedIsCountedAndLeftOut) {
  const InterleavedRatio r = interleaved_ratio({2000, kFailedSample, 3000}, {1000, 1000, kFailedSample});
  EXPECT_EQ(r.rounds, 3);
  EXPECT_EQ(r.failed, 2);
  EXPECT_TRUE(r.measured());
  EXPECT_DOUBLE_EQ(r.ratio, 2.0);
  EXPECT_FALSE(r.interval.ok);  // one good round: no interval
  EXPECT_EQ(interleaved_text(r, "real"),
            "2.00 over 3 interleaved rounds, 2 failed (rounds 2.00-2.00; ablate 2000, real 1000 images/s, medians)");
}

TEST(InterleavedRatio, NoGoodRoundIsNotMeasured) {
  const InterleavedRatio r = interleaved_ratio({kFailedSample, 1000}, {1000, 0});
  EXPECT_FALSE(r.measured());
  EXPECT_EQ(interleaved_text(r, "real"), "not measured (2 interleaved rounds, 2 failed)");
  EXPECT_EQ(interleaved_ratio({}, {}).rounds, 0);
}

TEST(InterleavedRatio, TheTextGivesTheIntervalWhereThereIsOne) {
  const InterleavedRatio r = interleaved_ratio({2000, 3000, 2500}, {1000, 1500, 1000});
  const std::string text = interleaved_text(r, "TensorFlow");
  EXPECT_EQ(text.rfind("2.17 [", 0), 0u) << text;
  EXPECT_NE(text.find("] over 3 interleaved rounds (rounds 2.00-2.50; ablate 2500, TensorFlow 1000 images/s, medians)"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace ablate::bench::experiments
