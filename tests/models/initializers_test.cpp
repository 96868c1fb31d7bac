// Statistics, bounds and determinism of the initializer rules over many samples.
#include <gtest/gtest.h>

#include <cmath>

#include "models/initializers.h"
#include "error_expectations.h"

namespace ablate::models {
namespace {

using testing::expect_error;

struct Stats {
  double mean = 0, variance = 0, min = 0, max = 0;
};

Stats stats_of(const kernels::Tensor& t) {
  Stats s;
  s.min = s.max = t.at(0);
  double sum = 0, sum_sq = 0;
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    const double v = t.at(i);
    sum += v;
    sum_sq += v * v;
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
  }
  s.mean = sum / static_cast<double>(t.numel());
  s.variance = sum_sq / static_cast<double>(t.numel()) - s.mean * s.mean;
  return s;
}

kernels::Tensor filled(kernels::Shape shape, const std::string& spec, std::uint64_t seed = 7,
                       kernels::DType dtype = kernels::DType::f64, double fan_out_override = 0,
                       double fan_in_override = 0) {
  kernels::Tensor t(std::move(shape), dtype);
  std::mt19937_64 rng(seed);
  initialize(t, spec, rng, fan_out_override, fan_in_override);
  return t;
}

// A uniform U(-a, a) over 200,000 samples: mean 0 and variance a^2 / 3 within about five
// standard errors, every value inside [-a, a] and the extremes close to +-a.
void expect_uniform(const kernels::Tensor& t, double a) {
  const Stats s = stats_of(t);
  EXPECT_NEAR(s.mean, 0.0, 0.01 * a);
  EXPECT_NEAR(s.variance, a * a / 3.0, 0.02 * a * a / 3.0);
  EXPECT_GE(s.min, -a);
  EXPECT_LE(s.max, a);
  EXPECT_LT(s.min, -0.999 * a);
  EXPECT_GT(s.max, 0.999 * a);
}

TEST(Initializers, ConstantFillsEveryValue) {
  const kernels::Tensor t = filled({3, 4}, "constant:0.1", 1, kernels::DType::f32);
  for (std::int64_t i = 0; i < t.numel(); ++i) EXPECT_FLOAT_EQ(static_cast<float>(t.at(i)), 0.1f);
  const kernels::Tensor z = filled({5}, "constant:-2");
  for (std::int64_t i = 0; i < z.numel(); ++i) EXPECT_EQ(z.at(i), -2.0);
}

TEST(Initializers, XavierIsCaffesFanInUniform) {
  // Caffe's XavierFiller (variance_norm FAN_IN): fan_in = count / num = 200000 / 2000 = 100.
  expect_uniform(filled({2000, 4, 5, 5}, "xavier"), std::sqrt(3.0 / 100.0));
  expect_uniform(filled({500, 400}, "xavier"), std::sqrt(3.0 / 400.0));
}

TEST(Initializers, UniformFanInIsTorchsReset) {
  expect_uniform(filled({1000, 200}, "uniform_fan_in"), 1.0 / std::sqrt(200.0));
  // A bias takes its layer's fan_in through the override (Torch draws it with the weight's stdv).
  expect_uniform(filled({200000}, "uniform_fan_in", 3, kernels::DType::f64, 0, 25.0), 1.0 / std::sqrt(25.0));
}

TEST(Initializers, GlorotUsesFanInAndFanOut) {
  // [K, C, KH, KW] = [400, 20, 5, 5]: fan_in = 500, fan_out = 10000.
  expect_uniform(filled({400, 20, 5, 5}, "glorot"), std::sqrt(6.0 / (500.0 + 10000.0)));
  // Theano's conv rule: fan_out = K * k^2 / pool^2 = 400 * 25 / 4 = 2500.
  expect_uniform(filled({400, 20, 5, 5}, "glorot", 7, kernels::DType::f64, 2500.0), std::sqrt(6.0 / 3000.0));
}

TEST(Initializers, GaussianMeanAndVariance) {
  const Stats s = stats_of(filled({400, 500}, "gaussian:0.01"));
  EXPECT_NEAR(s.mean, 0.0, 0.01 * 0.01);
  EXPECT_NEAR(s.variance, 1e-4, 0.03 * 1e-4);
  EXPECT_LT(s.min, -0.035);  // about 46 of 200,000 normal draws lie beyond 3.5 sigma on each side
  EXPECT_GT(s.max, 0.035);
}

// Caffe's MSRAFiller (variance_norm FAN_IN): N(0, 2 / fan_in); a [64, 16, 3, 3] weight has fan_in 144.
TEST(Initializers, MsraIsHesNormalOverFanIn) {
  const Stats s = stats_of(filled({64, 16, 3, 3}, "msra"));
  const double variance = 2.0 / 144.0;
  EXPECT_NEAR(s.mean, 0.0, 0.05 * std::sqrt(variance));
  EXPECT_NEAR(s.variance, variance, 0.05 * variance);
}

TEST(Initializers, TruncatedNormalNeverBeyondTwoSigma) {
  const double sigma = 0.1;
  for (kernels::DType dtype : {kernels::DType::f64, kernels::DType::f32}) {
    const Stats s = stats_of(filled({400, 500}, "truncated_normal:0.1", 11, dtype));
    const double slack = dtype == kernels::DType::f32 ? 1e-7 : 0.0;  // float rounding of 2 sigma
    EXPECT_GE(s.min, -2 * sigma - slack);
    EXPECT_LE(s.max, 2 * sigma + slack);
    EXPECT_LT(s.min, -1.99 * sigma);
    EXPECT_GT(s.max, 1.99 * sigma);
    // Variance of N(0, 1) truncated to [-2, 2]: 1 - 4 phi(2) / (Phi(2) - Phi(-2)).
    const double phi2 = std::exp(-2.0) / std::sqrt(2.0 * M_PI);
    const double mass = std::erf(2.0 / std::sqrt(2.0));
    const double variance = sigma * sigma * (1.0 - 4.0 * phi2 / mass);
    EXPECT_NEAR(s.mean, 0.0, 0.01 * sigma);
    EXPECT_NEAR(s.variance, variance, 0.02 * variance);
  }
}

TEST(Initializers, DeterministicPerSeed) {
  for (const char* spec : {"xavier", "gaussian:1", "truncated_normal:0.5", "glorot", "uniform_fan_in"}) {
    const kernels::Tensor a = filled({64, 3, 3}, spec, 42), b = filled({64, 3, 3}, spec, 42);
    const kernels::Tensor c = filled({64, 3, 3}, spec, 43);
    int same_as_other_seed = 0;
    for (std::int64_t i = 0; i < a.numel(); ++i) {
      ASSERT_EQ(a.at(i), b.at(i)) << spec << " at " << i;
      same_as_other_seed += a.at(i) == c.at(i);
    }
    EXPECT_EQ(same_as_other_seed, 0) << spec;
  }
}

TEST(Initializers, F32HoldsTheRoundedF64Values) {
  const kernels::Tensor d = filled({50, 20}, "gaussian:0.3", 5, kernels::DType::f64);
  const kernels::Tensor f = filled({50, 20}, "gaussian:0.3", 5, kernels::DType::f32);
  for (std::int64_t i = 0; i < d.numel(); ++i) ASSERT_EQ(f.at(i), static_cast<double>(static_cast<float>(d.at(i))));
}

TEST(Initializers, SuccessiveFillsContinueTheStream) {
  std::mt19937_64 rng(9);
  kernels::Tensor a({100}, kernels::DType::f64), b({100}, kernels::DType::f64);
  initialize(a, "xavier", rng);
  initialize(b, "xavier", rng);
  int equal = 0;
  for (std::int64_t i = 0; i < 100; ++i) equal += a.at(i) == b.at(i);
  EXPECT_EQ(equal, 0);
}

TEST(Initializers, UnknownOrMalformedRulesListTheKnownOnes) {
  kernels::Tensor t({4, 4});
  std::mt19937_64 rng(1);
  expect_error([&] { initialize(t, "he_normal", rng); },
               {"'he_normal'", "unknown rule", "constant:V", "gaussian:STD", "xavier", "uniform_fan_in", "glorot",
                "truncated_normal:STD", "msra"});
  expect_error([&] { initialize(t, "gaussian", rng); }, {"gaussian", "needs an argument STD"});
  expect_error([&] { initialize(t, "gaussian:-1", rng); }, {"STD must be positive"});
  expect_error([&] { initialize(t, "constant:abc", rng); }, {"'abc' is not a number"});
  expect_error([&] { initialize(t, "xavier:2", rng); }, {"xavier takes no argument"});
  kernels::Tensor ints({4}, kernels::DType::i32);
  expect_error([&] { initialize(ints, "constant:1", rng); }, {"i32", "f32 or f64"});
  EXPECT_NO_THROW(validate_initializer("truncated_normal:0.05"));
  EXPECT_EQ(initializer_forms().size(), 7u);
}

}  // namespace
}  // namespace ablate::models
