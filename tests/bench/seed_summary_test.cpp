// The final accuracies over seeds (bench/experiments/seed_summary.h): a seed where a side has no
// accuracy (a failed run, a peer that did not complete) is a gap, left out of the mean.
#include <gtest/gtest.h>

#include <cmath>

#include "bench/experiments/seed_summary.h"

namespace ablate::bench::experiments {
namespace {

SeedOutcome outcome(std::int64_t seed, const std::string& state, double mine, const std::string& peer_state, double theirs) {
  SeedOutcome o;
  o.seed = seed;
  CompareRow row;
  row.framework = "tensorflow";
  row.state = state;
  row.accuracy = mine;
  o.rows.push_back(row);
  RealComparison c;
  c.framework = "tensorflow";
  c.ablate_measured = row.measured();
  c.ablate.accuracy = mine;
  RealPathMeasure m;
  m.title = "TensorFlow 2.21.0 (onednn)";
  m.full.state = peer_state;
  m.full.accuracy = theirs;
  c.paths.push_back(m);
  o.real.push_back(c);
  return o;
}

TEST(SeedSummary, GapsAreLeftOutOfTheMeans) {
  const std::vector<SeedOutcome> outcomes = {outcome(1, "completed", 0.90, "completed", 0.89),
                                             outcome(2, "failed", 0, "completed", 0.88),
                                             outcome(3, "completed", 0.86, "failed", 0)};
  const std::vector<SeedLine> lines = seed_lines(outcomes);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].side, "ablate");
  EXPECT_TRUE(std::isnan(lines[0].accuracy[1]));
  EXPECT_NEAR(lines[0].mean_accuracy(), 0.88, 1e-12);
  const SeedLine& real = lines[1];
  EXPECT_TRUE(real.real);
  EXPECT_NEAR(real.mean_accuracy(), 0.885, 1e-12);  // seeds 1 and 2
  EXPECT_NEAR(real.points[0], 1.0, 1e-9);
  EXPECT_TRUE(std::isnan(real.points[1]));  // ablate failed
  EXPECT_TRUE(std::isnan(real.points[2]));  // the peer failed
  EXPECT_NEAR(real.mean_points(), 1.0, 1e-9);
  EXPECT_NEAR(real.largest_points(), 1.0, 1e-9);
  const std::string text = seeds_text(outcomes);
  EXPECT_NE(text.find("   0.8900    0.8800         -    0.8850"), std::string::npos) << text;
}

TEST(SeedSummary, TheLargestDifferenceKeepsItsSign) {
  const std::vector<SeedOutcome> outcomes = {outcome(1, "completed", 0.90, "completed", 0.895),
                                             outcome(2, "completed", 0.85, "completed", 0.87)};
  const std::vector<SeedLine> lines = seed_lines(outcomes);
  EXPECT_NEAR(lines[1].largest_points(), -2.0, 1e-9);
  EXPECT_NEAR(lines[1].mean_points(), -0.75, 1e-9);
}

}  // namespace
}  // namespace ablate::bench::experiments
