// The speed windows of a run and the spread they put around a speed ratio (window_rates.h):
// windows cut from known progress points, the ratio's interval on made-up windows whose answer
// is known, and the peer script's window_images_per_s= read from its result line.
#include <gtest/gtest.h>

#include <cmath>

#include "bench/experiments/peer_runner.h"
#include "bench/experiments/window_rates.h"

namespace ablate::bench::experiments {
namespace {

// 80 steps of batch 10: steps 1-40 take 0.01 s, steps 41-80 take 0.02 s; a point at step 1 and
// every 10th step, as a run's curve records them.
std::vector<std::pair<double, double>> two_speed_run() {
  std::vector<std::pair<double, double>> points;
  double seconds = 0;
  for (int step = 1; step <= 80; ++step) {
    seconds += step <= 40 ? 0.01 : 0.02;
    if (step == 1 || step % 10 == 0) points.emplace_back(step, seconds);
  }
  return points;
}

TEST(WindowRates, EqualWindowsOfAKnownRun) {
  const std::vector<double> rates = window_rates(two_speed_run(), 10, 8);
  ASSERT_EQ(rates.size(), 8u);
  for (int w = 0; w < 8; ++w) EXPECT_NEAR(rates[w], w < 4 ? 1000 : 500, 1e-6) << "window " << w;
  // Four windows of 20 steps; two of 40.
  const std::vector<double> four = window_rates(two_speed_run(), 10, 4);
  ASSERT_EQ(four.size(), 4u);
  EXPECT_NEAR(four[1], 1000, 1e-6);
  EXPECT_NEAR(four[2], 500, 1e-6);
  const std::vector<double> two = window_rates(two_speed_run(), 10, 2);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_NEAR(two[0], 1000, 1e-6);
  EXPECT_NEAR(two[1], 500, 1e-6);
}

TEST(WindowRates, FewerPointsThanWindowsGiveFewerWindows) {
  // Points at 1, 10, 20, 30: eight windows of 3.75 steps cut where points are.
  std::vector<std::pair<double, double>> p = {{1, 0.5}, {10, 1.0}, {20, 2.0}, {30, 3.0}};
  const std::vector<double> rates = window_rates(p, 1, 8);
  ASSERT_EQ(rates.size(), 4u);
  EXPECT_NEAR(rates[0], 1 / 0.5, 1e-12);  // step 1, its set-up in it
  EXPECT_NEAR(rates[1], 9 / 0.5, 1e-12);
  EXPECT_NEAR(rates[3], 10 / 1.0, 1e-12);
  EXPECT_TRUE(window_rates({}, 64).empty());
  EXPECT_TRUE(window_rates({{5, 0.0}}, 64).empty());  // no time: no rate
}

TEST(RatioSpread, TwiceAsFastIsToldApartFromOne) {
  const std::vector<double> ablate = {1900, 2100, 2000, 1950, 2050, 2000, 1980, 2020};
  const std::vector<double> peer = {990, 1010, 1000, 995, 1005, 1000};
  const RatioSpread s = ratio_spread(2000, 1000, ablate, peer);
  EXPECT_DOUBLE_EQ(s.ratio, 2.0);
  ASSERT_TRUE(s.interval.ok);
  EXPECT_TRUE(s.interval.covers(2.0)) << s.interval.low << " " << s.interval.high;
  EXPECT_FALSE(s.within_spread());
  EXPECT_LT(s.interval.high - s.interval.low, 0.2);
  EXPECT_EQ(s.ablate_low, 1900);
  EXPECT_EQ(s.peer_high, 1010);
  const std::string text = spread_text(s, "pytorch");
  EXPECT_EQ(text.rfind("95% [", 0), 0u) << text;
  EXPECT_NE(text.find("over 8 and 6 windows; per window ablate 1900-2100, pytorch 990-1010 images/s"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("within"), std::string::npos) << text;
  EXPECT_EQ(ratio_cell(s).rfind("2.00 [", 0), 0u) << ratio_cell(s);
}

TEST(RatioSpread, ASpeedThatMovesWithinTheRunsHidesASmallRatio) {
  // Both sides drift between 1000 and 3000 images/s; their overall speeds differ by 5%.
  const std::vector<double> ablate = {3000, 2800, 2000, 1500, 1000, 1200, 2600, 3000};
  const std::vector<double> peer = {1100, 1400, 2900, 3000, 2500, 1800, 1000, 1200};
  const RatioSpread s = ratio_spread(1.05 * 1800, 1800, ablate, peer);
  ASSERT_TRUE(s.interval.ok);
  EXPECT_TRUE(s.within_spread()) << s.interval.low << " " << s.interval.high;
  EXPECT_NE(spread_text(s, "real").find("; within the windows' spread"), std::string::npos);
  const std::string cell = ratio_cell(s);
  EXPECT_EQ(cell.substr(cell.size() - 2), " ~") << cell;
}

TEST(RatioSpread, ASideWithOneWindowHasNoSpreadAndSaysWhich) {
  const RatioSpread s = ratio_spread(2000, 1000, {1900, 2100}, {1000});
  EXPECT_FALSE(s.interval.ok);
  EXPECT_EQ(spread_text(s, "pytorch"), "no spread: pytorch reported 1 speed window");
  EXPECT_EQ(ratio_cell(s), "2.00");
  EXPECT_EQ(spread_text(ratio_spread(2000, 1000, {}, {900, 1100}), "real"), "no spread: ablate reported 0 speed windows");
}

TEST(PeerOutput, ReadsTheSpeedWindows) {
  const std::string line =
      "peer_result torch=2.1 threads=1 batch=64 iterations=80 warmup=0 images_per_s=1000.0 accuracy=0.5 "
      "peak_rss_bytes=1 precision=f32 window_images_per_s=";
  EXPECT_EQ(parse_peer_output(line + "900.5,1100.0\n", 0).window_images_per_s, (std::vector<double>{900.5, 1100.0}));
  const PeerMeasure none = parse_peer_output(line + "\n", 0);
  EXPECT_TRUE(none.completed()) << none.reason;
  EXPECT_TRUE(none.window_images_per_s.empty());
  const PeerMeasure bad = parse_peer_output(line + "900,fast\n", 0);
  EXPECT_EQ(bad.state, "failed");
  EXPECT_NE(bad.reason.find("malformed number"), std::string::npos) << bad.reason;
  const PeerMeasure zero = parse_peer_output(line + "900,0\n", 0);
  EXPECT_EQ(zero.state, "failed");
  EXPECT_NE(zero.reason.find("window rate that is not a positive number (0)"), std::string::npos) << zero.reason;
}

}  // namespace
}  // namespace ablate::bench::experiments
