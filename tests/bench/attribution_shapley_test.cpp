// The Shapley account of `compare --attribute` (attribution_shapley.h) on measurements whose
// truth is known: left unexplained plus the factors' values is the gap, the shares add up to 1,
// the interaction is split evenly and named, the factors' order changes nothing, a gap within
// the run-to-run spread gets no shares, and a failed sample is shown.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include <nlohmann/json.hpp>

#include "bench/experiments/attribution_shapley.h"
#include "command_runner.h"

using namespace ablate::bench::experiments;

namespace {

// Real 10 s; ablate with the framework's own factors 14 s; switching backend saves 3 s, precision
// 5 s, conv lowering 1 s, and backend with conv lowering together 1 s more (an interaction).
double truth(bool backend, bool precision, bool lowering) {
  return 14 - 3.0 * backend - 5.0 * precision - 1.0 * lowering - 1.0 * backend * lowering;
}

struct Built {
  DesignSpec spec;
  DesignPlan plan;
  std::vector<std::size_t> cell_measure;
  Cells seconds;
};

// The factors in `order`; `rounds` noisy rounds per configuration (noise sd `sd`, seeded by the
// configuration, so every order sees the same measurements).
Built build(const std::vector<std::string>& order, double gap_shift = 0, double sd = 0.05, int rounds = 5) {
  const std::map<std::string, std::vector<std::string>> levels = {
      {"backend", {"openblas", "onednn"}}, {"precision", {"f64", "f32"}}, {"conv lowering", {"per_image_gemm", "omp_per_image"}}};
  Built b;
  b.spec.shapley = true;
  b.spec.repeats = rounds;
  for (const auto& f : order) b.spec.factors.push_back({f, levels.at(f)});
  b.plan = plan_design(b.spec);
  auto noisy = [&](double mean, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> n(0, sd);
    std::vector<double> r;
    for (int i = 0; i < rounds; ++i) r.push_back(mean + n(rng));
    return r;
  };
  b.seconds.push_back(noisy(10 + gap_shift, 99));  // the real framework
  for (const DesignCell& c : b.plan.cells) {
    const bool be = c.values.at("backend") == "onednn", pr = c.values.at("precision") == "f32",
               lo = c.values.at("conv lowering") == "omp_per_image";
    b.cell_measure.push_back(b.seconds.size());
    b.seconds.push_back(noisy(truth(be, pr, lo), 1 + be + 2 * pr + 4 * lo));
  }
  return b;
}

ShapleyAccount settle(const Built& b) {
  ShapleyAccount a;
  a.framework = "theano";
  a.rounds = b.spec.repeats;
  settle_shapley_account(a, b.plan, b.spec, b.cell_measure, b.seconds, BootstrapOptions{});
  return a;
}

const ShapleyShare& share(const ShapleyAccount& a, const std::string& f) {
  for (const auto& s : a.factors)
    if (s.factor == f) return s;
  throw std::runtime_error("no factor " + f);
}

}  // namespace

TEST(ShapleyAccount, AddsUpToTheGapSplitsTheInteractionAndNamesIt) {
  const ShapleyAccount a = settle(build({"backend", "precision", "conv lowering"}));
  EXPECT_NEAR(a.real_s, 10, 0.1);
  EXPECT_NEAR(a.own_s, 14, 0.1);
  EXPECT_NEAR(a.fastest_s, 4, 0.1);
  double sum = 0, shares = a.left_share;
  for (const auto& f : a.factors) {
    sum += f.seconds;
    shares += f.share;
  }
  EXPECT_NEAR(a.left_s + sum, a.gap_s, 1e-9);  // by construction
  EXPECT_NEAR(shares, 1, 1e-9);
  EXPECT_TRUE(share(a, "backend").interval.covers(-3.5)) << share(a, "backend").seconds;   // -3 and half of -1
  EXPECT_TRUE(share(a, "conv lowering").interval.covers(-1.5)) << share(a, "conv lowering").seconds;
  EXPECT_TRUE(share(a, "precision").interval.covers(-5));
  EXPECT_TRUE(a.left_interval.covers(4));
  EXPECT_FALSE(a.gap_within_noise);
  EXPECT_EQ(a.interaction, "backend x conv lowering");
  EXPECT_TRUE(a.interaction_interval.covers(-0.5)) << a.interaction_s;  // half of -1 (contrast convention)
  const std::string text = shapley_account_text(a);
  EXPECT_HAS(text, "left unexplained (own factors - real)");
  EXPECT_HAS(text, "precision f64 -> f32");
  EXPECT_HAS(text, "largest interaction: backend x conv lowering");
  EXPECT_HAS(text, "exact over the 0 configurations");  // configurations are counted by attribute_shapley, not here
  const auto json = shapley_account_json(a);
  EXPECT_EQ(json["metrics"][0]["shapley"]["values"].size(), 3u);
}

TEST(ShapleyAccount, TheFactorsOrderChangesNoValueNorInterval) {
  const ShapleyAccount a = settle(build({"backend", "precision", "conv lowering"}));
  const ShapleyAccount b = settle(build({"conv lowering", "backend", "precision"}));
  for (const char* f : {"backend", "precision", "conv lowering"}) {
    EXPECT_NEAR(share(a, f).seconds, share(b, f).seconds, 1e-12) << f;
    EXPECT_NEAR(share(a, f).interval.low, share(b, f).interval.low, 1e-12) << f;
    EXPECT_NEAR(share(a, f).share, share(b, f).share, 1e-12) << f;
  }
  EXPECT_NEAR(a.gap_s, b.gap_s, 1e-12);
}

TEST(ShapleyAccount, AGapWithinTheSpreadHasNoSharesAndFailedSamplesAreShown) {
  // Real at 4.05 s against ablate's fastest at 4 s, rounds scattered by 0.3 s: within noise.
  ShapleyAccount a = settle(build({"backend", "precision", "conv lowering"}, -5.95, 0.3));
  EXPECT_TRUE(a.gap_within_noise) << a.gap_s << " spread " << a.spread;
  a.failed_samples = {"ablate's +backend round 2: the process was killed by signal 9"};
  const std::string text = shapley_account_text(a);
  EXPECT_HAS(text, "the gap is within noise");
  EXPECT_HAS(text, "FAILED sample (left out of its mean, counted here): ablate's +backend round 2");
  std::string shares = text;  // every percentage but the intervals' "95%" headings
  for (std::size_t at; (at = shares.find("95% interval")) != std::string::npos;) shares.erase(at, 12);
  EXPECT_EQ(shares.find('%'), std::string::npos) << "no percentages for a gap within noise:\n" << text;
  a.problem = "ablate's +backend could not be measured: killed";
  EXPECT_HAS(shapley_account_text(a), "no account: ablate's +backend could not be measured");
  EXPECT_HAS(shapley_account_markdown(a), "FAILED sample: ablate's +backend round 2");
}
