// The statistics core of `ablate ablate` and `compare --attribute`: factorial and fractional
// designs (their aliasing is what their resolution says, checked on the runs themselves),
// contrasts, ANOVA, exact and sampled Shapley values, the bootstrap and the median that counts
// its failed samples. Each against figures known in closed form.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>

#include "bench/experiments/bootstrap_interval.h"
#include "bench/experiments/factorial_anova.h"
#include "bench/experiments/factorial_design.h"
#include "bench/experiments/sample_median.h"
#include "bench/experiments/shapley_values.h"
#include "bench/experiments/two_level_effects.h"
#include "bench/run/median.h"

using namespace ablate::bench::experiments;

namespace {

// The column of an effect (the product of its factors' signs) over the runs.
std::vector<int> column(const TwoLevelDesign& d, std::uint64_t effect) {
  std::vector<int> c;
  for (const auto& run : d.runs) {
    int s = 1;
    for (int j = 0; j < d.factors; ++j)
      if (effect >> j & 1) s *= run[static_cast<std::size_t>(j)];
    c.push_back(s);
  }
  return c;
}

bool same_or_opposite(const std::vector<int>& a, const std::vector<int>& b) {
  std::vector<int> minus(b.size());
  for (std::size_t i = 0; i < b.size(); ++i) minus[i] = -b[i];
  return a == b || a == minus;
}

std::uint64_t bit(int j) { return std::uint64_t{1} << j; }

}  // namespace

TEST(FactorialDesign, FullFactorialIsBalancedAndOrthogonal) {
  const TwoLevelDesign d = full_factorial(4);
  ASSERT_EQ(d.runs.size(), 16u);
  EXPECT_EQ(resolution_name(d), "full");
  EXPECT_TRUE(defining_relation(d).empty());
  for (std::uint64_t e = 1; e < 16; ++e) {
    int sum = 0;
    for (int s : column(d, e)) sum += s;
    EXPECT_EQ(sum, 0) << effect_letters(e);  // every effect column balanced: all estimable apart
  }
}

TEST(FactorialDesign, EveryTabulatedFractionHasResolutionFourOrMoreOnItsRuns) {
  for (int k = 4; k <= 11; ++k)
    for (int p = 1; p <= largest_fraction(k); ++p) {
      TwoLevelDesign d;
      try {
        d = fractional_factorial(k, p);
      } catch (const std::invalid_argument&) {
        continue;  // not tabulated for this (k, p)
      }
      SCOPED_TRACE("2^(" + std::to_string(k) + "-" + std::to_string(p) + ")");
      ASSERT_EQ(d.runs.size(), std::size_t{1} << (k - p));
      EXPECT_GE(resolution(d), 4);
      // Resolution IV on the runs themselves: no main effect's column equals another main
      // effect's or any two-factor interaction's (up to sign).
      for (int a = 0; a < k; ++a) {
        for (int b = 0; b < k; ++b) {
          if (b != a) {
            EXPECT_FALSE(same_or_opposite(column(d, bit(a)), column(d, bit(b)))) << a << " " << b;
          }
          for (int c = b + 1; c < k; ++c)
            EXPECT_FALSE(same_or_opposite(column(d, bit(a)), column(d, bit(b) | bit(c))))
                << factor_letter(a) << " = " << factor_letter(b) << factor_letter(c);
        }
      }
    }
  EXPECT_EQ(largest_fraction(8), 4);
  EXPECT_EQ(largest_fraction(3), 0);
}

TEST(FactorialDesign, AliasesAreTheDefiningRelationsProductsAndHoldOnTheRuns) {
  const TwoLevelDesign d = fractional_factorial(6, 2);  // E = ABC, F = BCD: I = ABCE = BCDF = ADEF
  EXPECT_EQ(resolution(d), 4);
  EXPECT_EQ(resolution_name(d), "IV");
  std::vector<std::string> words;
  for (std::uint64_t w : defining_relation(d)) words.push_back(effect_letters(w));
  EXPECT_EQ(words, (std::vector<std::string>{"ABCE", "BCDF", "ADEF"}));
  const std::uint64_t AB = bit(0) | bit(1), CE = bit(2) | bit(4);
  const std::vector<std::uint64_t> ab = aliases(d, AB);
  EXPECT_EQ(ab.front(), CE);
  EXPECT_EQ(column(d, AB), column(d, CE));  // aliased: the same column
  for (std::uint64_t a : ab) EXPECT_TRUE(same_or_opposite(column(d, AB), column(d, a))) << effect_letters(a);
  EXPECT_FALSE(same_or_opposite(column(d, AB), column(d, bit(0) | bit(2))));  // AC is not among them
  // estimable_terms: the six main effects, then each alias group of interactions once.
  const std::vector<EstimableTerm> terms = estimable_terms(d);
  int mains = 0;
  for (const auto& t : terms) mains += std::popcount(t.effect) == 1;
  EXPECT_EQ(mains, 6);
  // 16 runs, 15 contrasts: 6 main effects, 7 alias groups of two-factor interactions (AB = CE,
  // AC = BE, AD = EF, AE = BC = DF, AF = DE, BD = CF, BF = CD), 2 of three-factor ones only.
  EXPECT_EQ(terms.size(), 13u);
  EXPECT_EQ(terms[6].effect, AB);
  ASSERT_FALSE(terms[6].aliased_with.empty());
  EXPECT_EQ(terms[6].aliased_with[0], CE);
  // Resolution V: no two-factor interaction aliased with another.
  const TwoLevelDesign v = fractional_factorial(5, 1);
  EXPECT_EQ(resolution_name(v), "V");
  for (const auto& t : estimable_terms(v)) EXPECT_TRUE(t.aliased_with.empty()) << effect_letters(t.effect);
}

TEST(FactorialDesign, AFractionNotTabulatedIsAnErrorNamingTheOnesThatAre) {
  try {
    fractional_factorial(6, 3);
    FAIL() << "2^(6-3) is resolution III";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--fraction 3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("or 1, 2"), std::string::npos) << e.what();
  }
}

TEST(TwoLevelEffects, ContrastsRecoverAKnownModel) {
  // y = 10 + 3[A] + 2[B] - 1[C] + 1.5[A][B], [X] = 1 at X's second level.
  const TwoLevelDesign d = full_factorial(3);
  std::vector<double> y;
  for (const auto& run : d.runs) {
    const double a = run[0] > 0, b = run[1] > 0, c = run[2] > 0;
    y.push_back(10 + 3 * a + 2 * b - c + 1.5 * a * b);
  }
  EXPECT_NEAR(contrast(d, y, bit(0)), 3.75, 1e-12);  // 3 + 1.5 / 2
  EXPECT_NEAR(contrast(d, y, bit(1)), 2.75, 1e-12);
  EXPECT_NEAR(contrast(d, y, bit(2)), -1, 1e-12);
  EXPECT_NEAR(contrast(d, y, bit(0) | bit(1)), 0.75, 1e-12);  // half of 1.5
  EXPECT_NEAR(contrast(d, y, bit(0) | bit(2)), 0, 1e-12);
  EXPECT_THROW(contrast(d, {1, 2}, bit(0)), std::invalid_argument);
}

TEST(Shapley, ExactValuesSplitTheInteractionAndSumToTheChange) {
  const int k = 3;
  std::vector<double> v(8);
  for (std::uint64_t S = 0; S < 8; ++S) {
    const double a = S & 1, b = S >> 1 & 1, c = S >> 2 & 1;
    v[S] = 10 + 3 * a + 2 * b - c + 1.5 * a * b;
  }
  const std::vector<double> phi = shapley_exact(v, k);
  EXPECT_NEAR(phi[0], 3.75, 1e-12);
  EXPECT_NEAR(phi[1], 2.75, 1e-12);
  EXPECT_NEAR(phi[2], -1, 1e-12);
  EXPECT_NEAR(phi[0] + phi[1] + phi[2], v[7] - v[0], 1e-12);
  // The factors listed in another order (C, A, B): each keeps its value.
  std::vector<double> w(8);
  for (std::uint64_t S = 0; S < 8; ++S) {
    const std::uint64_t original = (S >> 1 & 1) | (S >> 2 & 1) << 1 | (S & 1) << 2;
    w[S] = v[original];
  }
  const std::vector<double> psi = shapley_exact(w, k);
  EXPECT_NEAR(psi[0], phi[2], 1e-12);
  EXPECT_NEAR(psi[1], phi[0], 1e-12);
  EXPECT_NEAR(psi[2], phi[1], 1e-12);
  EXPECT_THROW(shapley_exact({1, 2, 3}, 2), std::invalid_argument);
}

TEST(Shapley, SampledOrdersSumExactlyAndAgreeWithinTheirStandardErrors) {
  const int k = 10;
  // Additive effects i + 1 plus an interaction of 4 between factors 2 and 7, and one of -3
  // among 0, 1 and 5.
  const auto v = [](std::uint64_t S) {
    double y = 100;
    for (int i = 0; i < 10; ++i) y += (S >> i & 1) * (i + 1.0);
    y += 4.0 * (S >> 2 & 1) * (S >> 7 & 1);
    y += -3.0 * (S & 1) * (S >> 1 & 1) * (S >> 5 & 1);
    return y;
  };
  std::vector<double> table(std::size_t{1} << k);
  for (std::uint64_t S = 0; S < table.size(); ++S) table[S] = v(S);
  const std::vector<double> exact = shapley_exact(table, k);
  EXPECT_NEAR(exact[2], 3 + 2.0, 1e-9);
  EXPECT_NEAR(exact[0], 1 - 1.0, 1e-9);
  const auto orders = sample_orders(k, 300, 7);
  const ShapleyEstimate e = shapley_sampled(k, orders, v);
  double sum = 0;
  for (int i = 0; i < k; ++i) {
    sum += e.value[static_cast<std::size_t>(i)];
    EXPECT_LE(std::abs(e.value[static_cast<std::size_t>(i)] - exact[static_cast<std::size_t>(i)]),
              4 * e.standard_error[static_cast<std::size_t>(i)] + 1e-12) << i;
  }
  EXPECT_NEAR(sum, v((std::uint64_t{1} << k) - 1) - v(0), 1e-9);  // by construction, whatever the orders
  EXPECT_EQ(e.standard_error[3], 0);                             // purely additive: every order agrees
  EXPECT_GT(e.standard_error[2], 0);
  EXPECT_EQ(order_prefixes({2, 0, 1}), (std::vector<std::uint64_t>{0, 4, 5, 7}));
}

TEST(Anova, SumsOfSquaresDecomposeAndTheFTestSeesAThreeLevelEffect) {
  // Factor 0: three levels with means +0, +2, +5; factor 1: two levels, no effect; noise sd 0.3.
  const FullFactorial d = full_factorial_levels({3, 2});
  ASSERT_EQ(d.cells.size(), 6u);
  std::mt19937_64 rng(3);
  std::normal_distribution<double> noise(0, 0.3);
  Cells cells;
  const double level[] = {0, 2, 5};
  for (const auto& c : d.cells) {
    std::vector<double> r;
    for (int i = 0; i < 4; ++i) r.push_back(10 + level[c[0]] + noise(rng));
    cells.push_back(r);
  }
  const AnovaTable t = anova(d, cells);
  // Two factors, balanced: main + interaction + error is the whole variation.
  EXPECT_NEAR(t.main[0].ss + t.main[1].ss + t.pairs[0].ss + t.ss_error, t.ss_total, 1e-9 * t.ss_total);
  EXPECT_EQ(t.main[0].df, 2);
  EXPECT_EQ(t.pairs[0].df, 2);
  EXPECT_EQ(t.df_error, 18);
  EXPECT_LT(t.main[0].p, 1e-6);
  EXPECT_GT(t.main[0].eta_squared, 0.9);
  EXPECT_GT(t.main[1].p, 0.05);
  const std::vector<double> lm = level_means(d, cell_means(cells), 0);
  EXPECT_NEAR(lm[2] - lm[0], 5, 0.5);
}

TEST(Anova, FDistributionTailMatchesTables) {
  EXPECT_NEAR(f_distribution_tail(4.964603, 1, 10), 0.05, 1e-5);   // F(1, 10) at 95%
  EXPECT_NEAR(f_distribution_tail(3.492828, 2, 20), 0.05, 1e-5);   // F(2, 20)
  EXPECT_NEAR(f_distribution_tail(10.04429, 1, 10), 0.01, 1e-5);   // F(1, 10) at 99%
  EXPECT_EQ(f_distribution_tail(0, 3, 7), 1);
}

TEST(Bootstrap, IntervalsAreSeededCoverTheMeanAndNeedRepeats) {
  const Cells cells = {{1.0, 1.2, 0.9, 1.1}, {2.0, 2.3, 1.8, 2.1}};
  const Statistic diff = [](const std::vector<double>& m) { return std::vector<double>{m[1] - m[0]}; };
  const auto a = bootstrap_intervals(cells, diff, {500, 9});
  const auto b = bootstrap_intervals(cells, diff, {500, 9});
  ASSERT_TRUE(a[0].ok);
  EXPECT_EQ(a[0].low, b[0].low);  // the same seed, the same interval
  EXPECT_TRUE(a[0].covers(1.05));
  EXPECT_FALSE(a[0].covers(0));
  EXPECT_FALSE(bootstrap_intervals({{1.0}, {2.0}}, diff)[0].ok);  // one repeat: no interval
  EXPECT_THROW(bootstrap_intervals({{1.0}, {}}, diff), std::invalid_argument);
  // Pooled sd: both cells deviate by +-0.1 (sd 0.1 * sqrt(2)) ... computed by hand.
  EXPECT_NEAR(run_to_run_spread({{1.0, 1.2}, {3.0, 3.2}}), std::sqrt((0.02 + 0.02) / 2), 1e-12);
  EXPECT_EQ(run_to_run_spread({{1.0}, {2.0}}), 0);
  EXPECT_TRUE(within_noise(0.5, {-0.1, 1.0, true}, 0.1));   // covers 0
  EXPECT_TRUE(within_noise(0.05, {0.01, 0.09, true}, 0.1)); // below the spread
  EXPECT_FALSE(within_noise(0.5, {0.3, 0.7, true}, 0.1));
}

TEST(SampleMedian, CountsFailedSamplesInsteadOfDroppingThem) {
  const Median m = median_of({3, kFailedSample, 1, 2});
  EXPECT_EQ(m.value, 2);
  EXPECT_EQ(m.failed, 1u);
  EXPECT_EQ(median_text(m), "2 (1 of 4 failed)");
  const Median zero = median_of({0, 5});  // a non-positive images/s is a failed sample
  EXPECT_EQ(zero.failed, 1u);
  EXPECT_EQ(zero.value, 5);
  const Median none = median_of({kFailedSample, 0});
  EXPECT_FALSE(none.ok());
  EXPECT_TRUE(std::isnan(none.value));
  EXPECT_EQ(median_text(none), "failed (2 of 2)");
  EXPECT_EQ(median_text(median_of({})), "-");
  EXPECT_EQ(median_of({4, 1, 3, 2}).value, 2.5);
  EXPECT_EQ(median_of({-1.5, 2}, false).value, 0.25);  // any finite value when not positive-only
}

// The one median under every figure (bench/run/median.h): the all-reduce bench, the profile's
// step coverage and the page faults take it too, so an even count gives the mean of the middle two.
TEST(SampleMedian, TheSharedMedianTakesTheMiddleTwoOfAnEvenCount) {
  EXPECT_EQ(ablate::bench::run::median({5, 1, 3}), 3);
  EXPECT_EQ(ablate::bench::run::median({4, 1, 3, 2}), 2.5);
  EXPECT_TRUE(std::isnan(ablate::bench::run::median({})));
}
