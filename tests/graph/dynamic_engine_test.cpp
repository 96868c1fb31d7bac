// The dynamic Engine: registry and parameters, errors on bad input (the layer-wise engine's
// messages), the NaN stop, evaluation, the caching allocator's counters (a warm training step
// reaches the system allocator no more; with the switch off it does every step), Torch's
// one-sample-at-a-time mode against the batched step, weight averaging and checkpoints (across
// strategies), and the report.
#include <cmath>
#include <limits>
#include <stdexcept>

#include <gtest/gtest.h>

#include "graph/dynamic/dynamic_engine.h"
#include "graph/engine.h"
#include "graph/engine_checkpoint.h"
#include "graph_test_util.h"
#include "kernels/registry.h"
#include "models/parameters.h"

namespace ablate::graph {
namespace {

using testing::expect_error;

EngineOptions torch_options(std::int64_t batch) {
  EngineOptions o;
  o.batch = batch;
  o.seed = 5;
  o.optimizer.type = "torch_sgd";
  o.optimizer.lr.policy = "torch_decay";
  o.optimizer.lr.base_lr = 0.05;
  o.optimizer.lr.gamma = 1e-3;
  o.optimizer.momentum = 0.9;
  o.optimizer.weight_decay = 1e-3;
  return o;
}

std::string dropout_lenet() {
  return testing::replaced(testing::tiny_lenet_text(), "layer ip2", "layer drop dropout keep=0.6\nlayer ip2");
}

double counter(const EngineReport& report, const std::string& key) {
  for (const auto& [name, value] : report.counters)
    if (name == key) return value;
  ADD_FAILURE() << "no counter '" << key << "' in the report";
  return -1;
}

TEST(DynamicEngine, IsRegisteredAndStartsFromTheSharedInitialParameters) {
  EXPECT_EQ(find_strategy("dynamic").build, &dynamic::make_dynamic_engine);
  auto backend = kernels::make_backend("reference");
  auto spec = testing::parse(testing::replaced(testing::tiny_lenet_text(), "layer conv2",
                                               "layer b1 bias bias_lr_mult=3 bias_decay_mult=0\nlayer conv2"));
  auto engine = make_engine("dynamic", spec, *backend, torch_options(4));
  EXPECT_EQ(engine->strategy(), "dynamic");
  EXPECT_EQ(&engine->backend(), backend.get());
  auto params = engine->parameters();
  auto initial = models::make_initial_parameters(spec, kernels::DType::f32, 5);
  ASSERT_EQ(params.size(), initial.size());
  for (std::size_t i = 0; i < initial.size(); ++i) {
    EXPECT_EQ(params[i]->name, initial[i].name);
    EXPECT_EQ(params[i]->value.shape(), initial[i].value.shape());
    EXPECT_EQ(params[i]->grad.shape(), initial[i].value.shape());
    EXPECT_FALSE(params[i]->value.same_storage(params[i]->grad));
    EXPECT_EQ(params[i]->lr_mult, initial[i].lr_mult) << initial[i].name;
    EXPECT_EQ(params[i]->decay_mult, initial[i].decay_mult) << initial[i].name;
    for (std::int64_t j = 0; j < initial[i].value.numel(); ++j)
      ASSERT_EQ(params[i]->value.at(j), initial[i].value.at(j)) << initial[i].name << "[" << j << "]";
  }
  EXPECT_EQ(params[2]->name, "b1.bias");
  EXPECT_DOUBLE_EQ(params[2]->lr_mult, 3.0);
  EXPECT_DOUBLE_EQ(params[2]->decay_mult, 0.0);
}

TEST(DynamicEngine, BadInputGivesClearErrors) {
  auto backend = kernels::make_backend("reference");
  auto spec = testing::parse(testing::tiny_lenet_text());
  expect_error<std::invalid_argument>([&] { make_engine("dynamic", spec, *backend, torch_options(0)); },
                                      {"batch size 0"});
  auto bad_optimizer = torch_options(4);
  bad_optimizer.optimizer.lr.policy = "poly";
  expect_error<std::invalid_argument>([&] { make_engine("dynamic", spec, *backend, bad_optimizer); }, {"poly"});

  auto engine = make_engine("dynamic", spec, *backend, torch_options(4));
  auto batch = testing::random_batch(spec, 4, kernels::DType::f32, 1);
  batch.labels.set(2, 3);
  expect_error<std::invalid_argument>([&] { engine->train_step(batch.x, batch.labels, 0); },
                                      {"train_step", "label 3", "sample 2", "classes 0..2"});
  testing::expect_bad_batches_rejected(*engine, batch);
}

TEST(DynamicEngine, ModelErrorsNameTheLayer) {
  auto backend = kernels::make_backend("reference");
  auto spec = testing::parse(testing::tiny_lenet_text());
  auto unknown = spec;
  unknown.layers[3].type = "maxpool";
  expect_error<std::invalid_argument>([&] { make_engine("dynamic", unknown, *backend, torch_options(2)); },
                                      {"test.model:7", "pool2", "unknown layer type 'maxpool'", "conv_map"});
  auto no_loss = spec;
  no_loss.layers.pop_back();
  expect_error<std::invalid_argument>([&] { make_engine("dynamic", no_loss, *backend, torch_options(2)); },
                                      {"ip2", "must be a loss"});
  auto duplicate = spec;
  duplicate.layers[2].name = "conv1";
  expect_error<std::invalid_argument>([&] { make_engine("dynamic", duplicate, *backend, torch_options(2)); },
                                      {"conv1", "used twice"});
  auto dangling = spec;
  dangling.layers[4].inputs = {"conv9"};
  expect_error<std::invalid_argument>([&] { make_engine("dynamic", dangling, *backend, torch_options(2)); },
                                      {"ip1", "'conv9'"});
  auto wrong_classes = spec;
  wrong_classes.classes = 5;
  expect_error<std::invalid_argument>([&] { make_engine("dynamic", wrong_classes, *backend, torch_options(2)); },
                                      {"loss", "[N, 5]"});
  // A spec built in code: an empty input after the first layer is the previous layer.
  auto in_code = spec;
  for (auto& layer : in_code.layers) layer.inputs.clear();
  auto engine = make_engine("dynamic", in_code, *backend, torch_options(2));
  auto batch = testing::random_batch(spec, 2, kernels::DType::f32, 3);
  EXPECT_TRUE(std::isfinite(engine->train_step(batch.x, batch.labels, 0)));
}

TEST(DynamicEngine, NanLossStopsBeforeTheUpdate) {
  auto backend = kernels::make_backend("reference");
  auto spec = testing::parse(testing::tiny_lenet_text());
  for (bool per_sample : {false, true}) {
    auto options = torch_options(4);
    options.per_sample = per_sample;
    auto engine = make_engine("dynamic", spec, *backend, options);
    auto batch = testing::random_batch(spec, 4, kernels::DType::f32, 2);
    testing::expect_nan_loss_stops_before_the_update(*engine, batch);
  }
}

TEST(DynamicEngine, EvaluateMatchesTheLayerwiseEngineAndUsesTheTrainedWeights) {
  auto backend = kernels::make_backend("reference");
  auto spec = testing::parse(dropout_lenet());
  auto options = torch_options(4);
  options.dtype = kernels::DType::f64;
  auto dynamic = make_engine("dynamic", spec, *backend, options);
  auto layerwise = make_engine("layerwise", spec, *backend, options);
  auto big = testing::random_batch(spec, 10, kernels::DType::f32, 3);
  const EvalResult first = dynamic->evaluate(big.x, big.labels);
  const EvalResult expected = layerwise->evaluate(big.x, big.labels);
  EXPECT_NEAR(first.loss, expected.loss, 1e-12 * std::abs(expected.loss));
  EXPECT_EQ(first.correct, expected.correct);
  EXPECT_EQ(dynamic->evaluate(big.x, big.labels).loss, first.loss) << "no dropout when evaluating";
  auto small = testing::random_batch(spec, 4, kernels::DType::f32, 4);
  dynamic->train_step(small.x, small.labels, 0);
  layerwise->train_step(small.x, small.labels, 0);
  const EvalResult trained = dynamic->evaluate(big.x, big.labels);
  EXPECT_NE(trained.loss, first.loss);
  EXPECT_NEAR(trained.loss, layerwise->evaluate(big.x, big.labels).loss, 1e-12 * std::abs(trained.loss));
}

TEST(DynamicEngine, ContinuesALayerwiseCheckpointWithWeightAveraging) {
  auto backend = kernels::make_backend("reference");
  auto spec = testing::parse(testing::tiny_lenet_text());
  auto options = torch_options(3);
  options.dtype = kernels::DType::f64;
  options.weight_average_decay = 0.99;
  auto layerwise = make_engine("layerwise", spec, *backend, options);
  for (int it = 0; it < 3; ++it) {
    const auto b = testing::random_batch(spec, 3, kernels::DType::f64, 60 + static_cast<std::uint64_t>(it));
    layerwise->train_step(b.x, b.labels, it);
  }
  Checkpoint saved;
  capture_engine_state(*layerwise, saved);
  options.seed = 77;  // other initial weights: all of the state comes from the checkpoint
  auto dynamic = make_engine("dynamic", spec, *backend, options);
  ASSERT_NE(dynamic->optimizer(), nullptr);
  ASSERT_NE(dynamic->weight_average(), nullptr);
  restore_engine_state(*dynamic, saved);
  const auto test = testing::random_batch(spec, 5, kernels::DType::f64, 8);
  for (int it = 3; it < 6; ++it) {
    const auto b = testing::random_batch(spec, 3, kernels::DType::f64, 60 + static_cast<std::uint64_t>(it));
    const double expected = layerwise->train_step(b.x, b.labels, it);
    EXPECT_NEAR(dynamic->train_step(b.x, b.labels, it), expected, 1e-12 * std::abs(expected)) << "iteration " << it;
    // Evaluation runs on the moving averages in both engines.
    const double averaged = layerwise->evaluate(test.x, test.labels).loss;
    EXPECT_NEAR(dynamic->evaluate(test.x, test.labels).loss, averaged, 1e-12 * std::abs(averaged));
  }
  options.weight_average_decay = 0;
  options.seed = 5;
  auto plain = make_engine("dynamic", spec, *backend, options);
  EXPECT_EQ(plain->weight_average(), nullptr);
}

TEST(DynamicEngine, PerSampleStepEqualsTheBatchedStep) {
  auto backend = kernels::make_backend("reference");
  // Dropout, lr_mult and momentum take part: the per-sample masks are rows of the batch's mask.
  auto spec = testing::parse(dropout_lenet());
  auto options = torch_options(5);
  options.dtype = kernels::DType::f64;
  auto batched = make_engine("dynamic", spec, *backend, options);
  options.per_sample = true;
  auto per_sample = make_engine("dynamic", spec, *backend, options);
  for (int step = 0; step < 3; ++step) {
    auto batch = testing::random_batch(spec, 5, kernels::DType::f64, 40 + static_cast<std::uint64_t>(step));
    const double a = batched->train_step(batch.x, batch.labels, step);
    const double b = per_sample->train_step(batch.x, batch.labels, step);
    EXPECT_NEAR(b, a, 1e-9 * std::abs(a)) << "step " << step;
  }
  auto pa = batched->parameters(), pb = per_sample->parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (std::size_t i = 0; i < pa.size(); ++i)
    for (std::int64_t j = 0; j < pa[i]->value.numel(); ++j)
      ASSERT_NEAR(pb[i]->value.at(j), pa[i]->value.at(j), 1e-9 * std::max(1.0, std::abs(pa[i]->value.at(j))))
          << pa[i]->name << "[" << j << "]";
}

TEST(DynamicEngine, CachingAllocatorMakesWarmStepsAllocationFree) {
  auto backend = kernels::make_backend("reference");
  auto spec = testing::parse(dropout_lenet());
  auto engine = make_engine("dynamic", spec, *backend, torch_options(8));
  auto batch = testing::random_batch(spec, 8, kernels::DType::f32, 6);
  auto test_batch = testing::random_batch(spec, 20, kernels::DType::f32, 7);
  engine->train_step(batch.x, batch.labels, 0);
  engine->evaluate(test_batch.x, test_batch.labels);
  engine->train_step(batch.x, batch.labels, 1);
  engine->evaluate(test_batch.x, test_batch.labels);
  const EngineReport warm = engine->report();
  const auto system_before = kernels::cpu_allocator().stats();
  for (int t = 2; t < 6; ++t) {
    engine->train_step(batch.x, batch.labels, t);
    if (t % 2 == 0) engine->evaluate(test_batch.x, test_batch.labels);
  }
  const EngineReport after = engine->report();
  EXPECT_GT(counter(warm, "allocator_system_allocations"), 0);
  EXPECT_EQ(counter(after, "allocator_system_allocations"), counter(warm, "allocator_system_allocations"));
  EXPECT_EQ(counter(after, "allocator_misses"), counter(warm, "allocator_misses"));
  EXPECT_GT(counter(after, "allocator_hits"), counter(warm, "allocator_hits"));
  EXPECT_EQ(counter(after, "allocator_system_frees"), 0);
  EXPECT_GT(counter(after, "allocator_peak_bytes"), 0);
  EXPECT_GE(counter(after, "allocator_peak_reserved_bytes"), counter(after, "allocator_peak_bytes"));
  EXPECT_GT(counter(after, "allocator_cached_bytes"), 0);
  // Nothing else reached the system allocator either (workspaces come from the cache).
  EXPECT_EQ(kernels::cpu_allocator().stats().allocations, system_before.allocations);
}

TEST(DynamicEngine, WithoutTheCacheEveryStepAllocates) {
  auto backend = kernels::make_backend("reference");
  auto spec = testing::parse(testing::tiny_lenet_text());
  auto options = torch_options(4);
  options.caching_allocator = false;
  auto engine = make_engine("dynamic", spec, *backend, options);
  auto batch = testing::random_batch(spec, 4, kernels::DType::f32, 8);
  engine->train_step(batch.x, batch.labels, 0);
  engine->train_step(batch.x, batch.labels, 1);
  const EngineReport warm = engine->report();
  const auto system_before = kernels::cpu_allocator().stats();
  engine->train_step(batch.x, batch.labels, 2);
  const EngineReport after = engine->report();
  const double per_step = counter(after, "allocator_system_allocations") - counter(warm, "allocator_system_allocations");
  EXPECT_GT(per_step, 10) << "every tensor of the step is a system allocation";
  EXPECT_EQ(counter(after, "allocator_hits"), 0);
  EXPECT_EQ(counter(after, "allocator_cached_bytes"), 0);
  EXPECT_EQ(counter(after, "allocator_system_frees") - counter(warm, "allocator_system_frees"), per_step);
  EXPECT_EQ(kernels::cpu_allocator().stats().allocations - system_before.allocations, per_step);
  bool setting = false;
  for (const auto& [key, value] : after.settings) setting |= key == "caching_allocator" && value == "off";
  EXPECT_TRUE(setting);
}

TEST(DynamicEngine, F32InputFeedsAnF64Engine) {
  auto backend = kernels::make_backend("reference");
  auto spec = testing::parse(testing::tiny_lenet_text());
  auto options = torch_options(4);
  options.dtype = kernels::DType::f64;
  auto from_f32 = make_engine("dynamic", spec, *backend, options);
  auto from_f64 = make_engine("dynamic", spec, *backend, options);
  auto batch = testing::random_batch(spec, 4, kernels::DType::f32, 10);
  kernels::Tensor x64(batch.x.shape(), kernels::DType::f64);
  x64.copy_from(batch.x);
  EXPECT_EQ(from_f32->parameters()[0]->value.dtype(), kernels::DType::f64);
  for (int t = 0; t < 2; ++t)
    EXPECT_EQ(from_f32->train_step(batch.x, batch.labels, t), from_f64->train_step(x64, batch.labels, t));
}

}  // namespace
}  // namespace ablate::graph
