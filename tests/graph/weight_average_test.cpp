// TF's ExponentialMovingAverage of the weights: the decay rule by hand, the swap used for
// evaluation, and the layer-wise engine evaluating on the averages while training on the
// weights themselves.
#include <cmath>
#include <stdexcept>

#include <gtest/gtest.h>

#include "graph/engine.h"
#include "graph/optim/weight_average.h"
#include "graph_test_util.h"
#include "kernels/registry.h"

namespace ablate::graph {
namespace {

Parameter parameter(std::vector<double> values) {
  Parameter p;
  p.name = "w";
  p.value = kernels::Tensor({static_cast<std::int64_t>(values.size())}, kernels::DType::f64);
  for (std::size_t i = 0; i < values.size(); ++i) p.value.set(static_cast<std::int64_t>(i), values[i]);
  return p;
}

TEST(WeightAverage, DecayRuleAndShadowByHand) {
  auto backend = kernels::make_backend("reference");
  WeightAverage average(0.9999, *backend);
  EXPECT_DOUBLE_EQ(average.effective_decay(1), 2.0 / 11.0);          // (1 + t) / (10 + t) early on
  EXPECT_DOUBLE_EQ(average.effective_decay(1000), 1001.0 / 1010.0);
  EXPECT_DOUBLE_EQ(average.effective_decay(1000000), 0.9999);        // then the decay itself

  Parameter p = parameter({1, 2});
  std::vector<Parameter*> params{&p};
  average.begin(params);
  p.value.set(0, 3);
  p.value.set(1, 4);
  average.update(params, 1);
  const double d = 2.0 / 11.0;
  EXPECT_NEAR(average.shadows()[0].at(0), d * 1 + (1 - d) * 3, 1e-15);
  EXPECT_NEAR(average.shadows()[0].at(1), d * 2 + (1 - d) * 4, 1e-15);
  {
    WeightAverage::Swap swap(average, params);
    EXPECT_EQ(p.value.at(0), average.shadows()[0].at(0));
  }
  EXPECT_EQ(p.value.at(0), 3);  // the trained value is back
  EXPECT_EQ(p.value.at(1), 4);
}

TEST(WeightAverage, RejectsDecayOutsideZeroOne) {
  auto backend = kernels::make_backend("reference");
  testing::expect_error<std::invalid_argument>([&] { WeightAverage(1.5, *backend); }, {"1.5", "(0, 1]"});
  testing::expect_error<std::invalid_argument>([&] { WeightAverage(0, *backend); }, {"(0, 1]"});
}

TEST(WeightAverage, LayerwiseEngineEvaluatesOnTheAverages) {
  const models::ModelSpec spec = testing::parse(testing::tiny_lenet_text());
  auto backend = kernels::make_backend("reference");
  EngineOptions options;
  options.dtype = kernels::DType::f64;
  options.batch = 4;
  options.optimizer.type = "gd";
  options.optimizer.lr.base_lr = 0.1;
  EngineOptions averaged_options = options;
  averaged_options.weight_average_decay = 0.9;
  auto plain = make_engine("layerwise", spec, *backend, options);
  auto averaged = make_engine("layerwise", spec, *backend, averaged_options);

  // The averages, tracked by hand from the plain engine's weights after each step.
  std::vector<std::vector<double>> shadow;
  for (Parameter* p : plain->parameters()) {
    shadow.emplace_back();
    for (std::int64_t i = 0; i < p->value.numel(); ++i) shadow.back().push_back(p->value.at(i));
  }
  const testing::Batch test = testing::random_batch(spec, 6, kernels::DType::f64, 99);
  for (int step = 0; step < 5; ++step) {
    const testing::Batch b = testing::random_batch(spec, 4, kernels::DType::f64, 10 + step);
    const double l1 = plain->train_step(b.x, b.labels, step);
    const double l2 = averaged->train_step(b.x, b.labels, step);
    ASSERT_EQ(l1, l2) << "averaging must not change training";
    const double d = std::min(0.9, (2.0 + step) / (11.0 + step));
    auto params = plain->parameters();
    for (std::size_t k = 0; k < params.size(); ++k)
      for (std::int64_t i = 0; i < params[k]->value.numel(); ++i)
        shadow[k][static_cast<std::size_t>(i)] = d * shadow[k][static_cast<std::size_t>(i)] + (1 - d) * params[k]->value.at(i);
    if (step == 2) averaged->evaluate(test.x, test.labels);  // evaluating in between changes nothing
  }
  const EvalResult on_weights = plain->evaluate(test.x, test.labels);
  const EvalResult on_averages = averaged->evaluate(test.x, test.labels);
  EXPECT_GT(std::abs(on_weights.loss - on_averages.loss), 1e-6) << "the average should differ from the weights";

  auto params = plain->parameters();
  for (std::size_t k = 0; k < params.size(); ++k)
    for (std::int64_t i = 0; i < params[k]->value.numel(); ++i) params[k]->value.set(i, shadow[k][static_cast<std::size_t>(i)]);
  EXPECT_NEAR(plain->evaluate(test.x, test.labels).loss, on_averages.loss, 1e-12);
  // Training goes on from the trained weights, not from the averages.
  const testing::Batch b = testing::random_batch(spec, 4, kernels::DType::f64, 77);
  EXPECT_NE(averaged->train_step(b.x, b.labels, 5), plain->train_step(b.x, b.labels, 5));
}

// Every strategy evaluates on the same averages: the dynamic and static engines' averaged
// evaluations equal the layer-wise engine's after the same steps.
TEST(WeightAverage, EveryStrategyAveragesAlike) {
  const models::ModelSpec spec = testing::parse(testing::tiny_lenet_text());
  auto backend = kernels::make_backend("reference");
  EngineOptions options;
  options.dtype = kernels::DType::f64;
  options.batch = 4;
  options.optimizer.type = "caffe_sgd";
  options.optimizer.momentum = 0.9;
  options.optimizer.lr.base_lr = 0.05;
  options.weight_average_decay = 0.9;
  const testing::Batch test = testing::random_batch(spec, 6, kernels::DType::f64, 99);
  std::vector<double> losses;
  for (const std::string strategy : {"layerwise", "dynamic", "static"}) {
    auto engine = make_engine(strategy, spec, *backend, options);
    for (int step = 0; step < 5; ++step) {
      const testing::Batch b = testing::random_batch(spec, 4, kernels::DType::f64, 10 + step);
      engine->train_step(b.x, b.labels, step);
    }
    ASSERT_NE(engine->weight_average(), nullptr) << strategy;
    losses.push_back(engine->evaluate(test.x, test.labels).loss);
  }
  EXPECT_NEAR(losses[1], losses[0], 1e-12 * std::abs(losses[0]));
  EXPECT_NEAR(losses[2], losses[0], 1e-12 * std::abs(losses[0]));
}

}  // namespace
}  // namespace ablate::graph
