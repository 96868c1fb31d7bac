// Learning-rate policies against their formulas (Caffe's GetLearningRate, TF's staircase
// exponential_decay, Torch's learningRateDecay) and validate()'s errors.
#include <cmath>
#include <stdexcept>

#include <gtest/gtest.h>

#include "graph/optim/optimizer_config.h"
#include "graph_test_util.h"

namespace ablate::graph {
namespace {

using testing::expect_error;

LrPolicyConfig policy(const std::string& name, double base, double gamma = 0, double power = 0,
                      std::int64_t stepsize = 0, const std::string& stepvalues = "") {
  LrPolicyConfig c;
  c.policy = name;
  c.base_lr = base;
  c.gamma = gamma;
  c.power = power;
  c.stepsize = stepsize;
  c.stepvalues = stepvalues;
  return c;
}

const std::int64_t kIterations[] = {0, 1, 2, 99, 100, 101, 999, 1000, 4999, 5000, 10000, 123456};

// Linear warm-up over 10 iterations to the base rate, then a half cosine to 0 at iteration 110.
TEST(LrPolicy, WarmupCosine) {
  LrPolicyConfig c = policy("warmup_cosine", 0.002);
  c.warmup = 10;
  c.max_iter = 110;
  EXPECT_DOUBLE_EQ(learning_rate(c, 0), 0.0002);
  EXPECT_DOUBLE_EQ(learning_rate(c, 4), 0.001);
  EXPECT_DOUBLE_EQ(learning_rate(c, 9), 0.002);
  EXPECT_DOUBLE_EQ(learning_rate(c, 10), 0.002);
  EXPECT_NEAR(learning_rate(c, 60), 0.001, 1e-15);
  EXPECT_NEAR(learning_rate(c, 35), 0.001 * (1 + std::cos(M_PI / 4)), 1e-15);
  EXPECT_NEAR(learning_rate(c, 109), 0.001 * (1 + std::cos(M_PI * 99 / 100)), 1e-15);
  EXPECT_EQ(learning_rate(c, 110), 0.0);
  EXPECT_EQ(learning_rate(c, 500), 0.0);
  c.warmup = 0;
  EXPECT_DOUBLE_EQ(learning_rate(c, 0), 0.002);
  OptimizerConfig o;
  o.type = "adamw";
  o.lr = c;
  o.lr.max_iter = 0;
  expect_error<std::invalid_argument>([&] { validate(o); }, {"warmup_cosine", "max_iter 0", "more iterations than warmup"});
  o.type = "adamv";
  expect_error<std::invalid_argument>([&] { validate(o); }, {"optimizer 'adamv'", "adamw"});
}

TEST(LrPolicy, FixedIsTheBaseRate) {
  for (auto t : kIterations) EXPECT_DOUBLE_EQ(learning_rate(policy("fixed", 0.01), t), 0.01);
}

TEST(LrPolicy, InvFollowsCaffeLenetSchedule) {
  auto c = policy("inv", 0.01, 1e-4, 0.75);
  for (auto t : kIterations)
    EXPECT_NEAR(learning_rate(c, t), 0.01 * std::pow(1.0 + 1e-4 * static_cast<double>(t), -0.75), 1e-15) << t;
  // Caffe LeNet at iteration 10000: 0.01 * 2^-0.75.
  EXPECT_NEAR(learning_rate(c, 10000), 0.0059460355750136, 1e-13);
}

TEST(LrPolicy, StepAndExpStaircaseDropEveryStepsize) {
  for (const char* name : {"step", "exp_staircase"}) {
    auto c = policy(name, 0.1, 0.1, 0, 1000);
    EXPECT_DOUBLE_EQ(learning_rate(c, 0), 0.1);
    EXPECT_DOUBLE_EQ(learning_rate(c, 999), 0.1);
    EXPECT_NEAR(learning_rate(c, 1000), 0.01, 1e-16);
    EXPECT_NEAR(learning_rate(c, 1999), 0.01, 1e-16);
    EXPECT_NEAR(learning_rate(c, 2500), 0.001, 1e-17);
    for (auto t : kIterations) EXPECT_NEAR(learning_rate(c, t), 0.1 * std::pow(0.1, t / 1000), 1e-18) << name << " " << t;
  }
}

TEST(LrPolicy, MultistepCountsPassedStepValues) {
  // cifar10_quick: 0.001 for 4000 iterations, then 0.0001.
  auto c = policy("multistep", 0.001, 0.1, 0, 0, "4000");
  EXPECT_DOUBLE_EQ(learning_rate(c, 3999), 0.001);
  EXPECT_NEAR(learning_rate(c, 4000), 0.0001, 1e-18);
  auto c3 = policy("multistep", 1.0, 0.5, 0, 0, "10, 20,30");
  const std::pair<std::int64_t, double> expected[] = {{0, 1.0}, {9, 1.0}, {10, 0.5}, {19, 0.5}, {20, 0.25},
                                                     {29, 0.25}, {30, 0.125}, {1000, 0.125}};
  for (auto [t, lr] : expected) EXPECT_DOUBLE_EQ(learning_rate(c3, t), lr) << t;
}

TEST(LrPolicy, TorchDecayDividesByOnePlusDecayTimesT) {
  auto c = policy("torch_decay", 0.05, 5e-7);
  for (auto t : kIterations)
    EXPECT_NEAR(learning_rate(c, t), 0.05 / (1.0 + static_cast<double>(t) * 5e-7), 1e-16) << t;
  EXPECT_NEAR(learning_rate(c, 120000), 0.05 / 1.06, 1e-15);
}

TEST(LrPolicy, NegativeIterationAndUnknownPolicyThrow) {
  expect_error<std::invalid_argument>([] { learning_rate(policy("fixed", 0.1), -1); }, {"iteration -1"});
  expect_error<std::invalid_argument>([] { learning_rate(policy("cosine", 0.1), 0); }, {"cosine", "fixed", "torch_decay"});
}

OptimizerConfig config(const std::string& type, const LrPolicyConfig& lr) {
  OptimizerConfig c;
  c.type = type;
  c.lr = lr;
  return c;
}

TEST(OptimizerConfigValidate, AcceptsTheFrameworkDefaults) {
  OptimizerConfig caffe = config("caffe_sgd", policy("inv", 0.01, 1e-4, 0.75));
  caffe.momentum = 0.9;
  caffe.weight_decay = 5e-4;
  EXPECT_NO_THROW(validate(caffe));
  OptimizerConfig tf = config("adam", policy("fixed", 1e-4));
  EXPECT_NO_THROW(validate(tf));
  EXPECT_NO_THROW(validate(config("torch_sgd", policy("torch_decay", 0.05, 5e-7))));
  EXPECT_NO_THROW(validate(config("gd", policy("exp_staircase", 0.1, 0.1, 0, 350))));
  EXPECT_NO_THROW(validate(config("caffe_sgd", policy("multistep", 0.001, 0.1, 0, 0, "4000"))));
}

TEST(OptimizerConfigValidate, NamesTheBadField) {
  expect_error<std::invalid_argument>([] { validate(config("rmsprop", policy("fixed", 0.1))); },
                                      {"rmsprop", "caffe_sgd", "adam"});
  expect_error<std::invalid_argument>([] { validate(config("gd", policy("fixed", 0))); }, {"base_lr 0"});
  expect_error<std::invalid_argument>([] { validate(config("gd", policy("fixed", NAN))); }, {"base_lr"});
  expect_error<std::invalid_argument>([] { validate(config("gd", policy("step", 0.1, 0.1, 0, 0))); },
                                      {"step", "stepsize 0"});
  expect_error<std::invalid_argument>([] { validate(config("gd", policy("inv", 0.1, -1, 0.75))); }, {"gamma -1"});
  expect_error<std::invalid_argument>([] { validate(config("gd", policy("multistep", 0.1, 0.1))); },
                                      {"stepvalues", "empty"});
  expect_error<std::invalid_argument>([] { validate(config("gd", policy("multistep", 0.1, 0.1, 0, 0, "200,100"))); },
                                      {"200,100", "100", "increasing"});
  expect_error<std::invalid_argument>([] { validate(config("gd", policy("multistep", 0.1, 0.1, 0, 0, "1x"))); },
                                      {"'1x'"});
  expect_error<std::invalid_argument>([] { validate(config("gd", policy("linear", 0.1))); }, {"linear"});
  auto momentum = config("caffe_sgd", policy("fixed", 0.1));
  momentum.momentum = 1.0;
  expect_error<std::invalid_argument>([&] { validate(momentum); }, {"momentum 1", "[0, 1)"});
  auto gd = config("gd", policy("fixed", 0.1));
  gd.momentum = 0.9;
  expect_error<std::invalid_argument>([&] { validate(gd); }, {"gd", "momentum 0.9"});
  auto decay = config("torch_sgd", policy("fixed", 0.1));
  decay.weight_decay = -1;
  expect_error<std::invalid_argument>([&] { validate(decay); }, {"weight_decay -1"});
  auto nesterov = config("torch_sgd", policy("fixed", 0.1));
  nesterov.nesterov = true;
  expect_error<std::invalid_argument>([&] { validate(nesterov); }, {"nesterov", "momentum 0"});
  auto adam = config("adam", policy("fixed", 0.1));
  adam.beta2 = 1.0;
  expect_error<std::invalid_argument>([&] { validate(adam); }, {"beta2 1"});
  adam.beta2 = 0.999;
  adam.epsilon = 0;
  expect_error<std::invalid_argument>([&] { validate(adam); }, {"epsilon 0"});
}

}  // namespace
}  // namespace ablate::graph
