// The layer-wise Engine: parameter names and order, the Caffe in-place layers, errors on bad
// input, the NaN stop, evaluation with another batch size sharing the trained weights, and
// no allocation inside train_step once a batch size has been seen.
#include <cmath>
#include <limits>
#include <stdexcept>

#include <gtest/gtest.h>

#include "graph/engine.h"
#include "graph/layerwise/layerwise_engine.h"
#include "graph/layerwise/net.h"
#include "graph_test_util.h"
#include "kernels/registry.h"
#include "models/parameters.h"
#include "models/shape_inference.h"

namespace ablate::graph {
namespace {

using testing::expect_error;

EngineOptions caffe_options(std::int64_t batch) {
  EngineOptions o;
  o.batch = batch;
  o.seed = 5;
  o.optimizer.type = "caffe_sgd";
  o.optimizer.lr.policy = "inv";
  o.optimizer.lr.base_lr = 0.01;
  o.optimizer.lr.gamma = 1e-4;
  o.optimizer.lr.power = 0.75;
  o.optimizer.momentum = 0.9;
  o.optimizer.weight_decay = 5e-4;
  return o;
}

TEST(LayerwiseEngine, ParametersInCanonicalOrderWithNamesAndMultipliers) {
  auto backend = kernels::make_backend("reference");
  auto spec = testing::parse(testing::replaced(testing::tiny_lenet_text(), "layer conv2",
                                               "layer b1 bias bias_lr_mult=3 bias_decay_mult=0\nlayer conv2"));
  auto engine = make_engine("layerwise", spec, *backend, caffe_options(4));
  EXPECT_EQ(engine->strategy(), "layerwise");
  EXPECT_EQ(&engine->backend(), backend.get());
  auto params = engine->parameters();
  const std::vector<std::string> names = {"conv1.weight", "conv1.bias", "b1.bias",   "conv2.weight", "conv2.bias",
                                          "ip1.weight",   "ip1.bias",   "ip2.weight", "ip2.bias"};
  const std::vector<kernels::Shape> shapes = {{4, 1, 3, 3}, {4}, {4}, {4, 4, 3, 3}, {4}, {8, 16}, {8}, {3, 8}, {3}};
  ASSERT_EQ(params.size(), names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(params[i]->name, names[i]);
    EXPECT_EQ(params[i]->value.shape(), shapes[i]) << names[i];
    EXPECT_EQ(params[i]->grad.shape(), shapes[i]) << names[i];
    EXPECT_FALSE(params[i]->value.same_storage(params[i]->grad)) << names[i];
  }
  EXPECT_DOUBLE_EQ(params[2]->lr_mult, 3.0);
  EXPECT_DOUBLE_EQ(params[2]->decay_mult, 0.0);
  EXPECT_DOUBLE_EQ(params[6]->lr_mult, 2.0);  // ip1 bias_lr_mult=2
  EXPECT_DOUBLE_EQ(params[5]->lr_mult, 1.0);
  // The initial values are models::make_initial_parameters' for the seed.
  auto initial = models::make_initial_parameters(spec, kernels::DType::f32, 5);
  for (std::size_t i = 0; i < names.size(); ++i)
    for (std::int64_t j = 0; j < initial[i].value.numel(); ++j)
      ASSERT_EQ(params[i]->value.at(j), initial[i].value.at(j)) << names[i] << "[" << j << "]";
}

TEST(LayerwiseNet, BlobShapesFollowShapeInferenceAndReluRunsInPlace) {
  auto backend = kernels::make_backend("reference");
  auto spec = testing::parse(testing::replaced(testing::tiny_lenet_text(), "layer ip2",
                                               "layer drop dropout keep=0.5\nlayer t tanh\nlayer r2 relu\nlayer ip2"));
  layerwise::NetOptions options;
  options.batch = 6;
  layerwise::Net net(models::CheckedModel(spec), *backend, options);
  auto shapes = models::infer_shapes(spec, 6);
  for (std::size_t i = 0; i + 1 < spec.layers.size(); ++i)
    EXPECT_EQ(net.blob(spec.layers[i].name).shape(), shapes[i].output) << spec.layers[i].name;
  EXPECT_EQ(net.scores().shape(), (kernels::Shape{6, 3}));
  // relu1 and drop run in place on ip1's blob (Caffe's prototxt); tanh has its own top, and
  // a ReLU after tanh stays out of place since tanh's backward reads its output.
  EXPECT_EQ(&net.blob("relu1"), &net.blob("ip1"));
  EXPECT_EQ(&net.blob("drop"), &net.blob("ip1"));
  EXPECT_NE(&net.blob("t"), &net.blob("ip1"));
  EXPECT_NE(&net.blob("r2"), &net.blob("t"));
  net.reshape(10);
  EXPECT_EQ(net.blob("pool2").shape(), (kernels::Shape{10, 4, 2, 2}));
  EXPECT_EQ(net.input().shape(), (kernels::Shape{10, 1, 12, 12}));
}

TEST(LayerwiseNet, DropoutMaskFollowsIterationAndSeedAndTestPhaseIsIdentity) {
  auto backend = kernels::make_backend("reference");
  const std::string plain = testing::tiny_lenet_text();
  auto spec = testing::parse(testing::replaced(plain, "layer ip2", "layer drop dropout keep=0.5\nlayer ip2"));
  auto without = testing::parse(plain);
  auto initial = models::make_initial_parameters(spec, kernels::DType::f64, 8);
  auto batch = testing::random_batch(spec, 5, kernels::DType::f64, 9);
  auto make = [&](const models::ModelSpec& s, layerwise::Phase phase) {
    layerwise::NetOptions options;
    options.phase = phase;
    options.batch = 5;
    options.dtype = kernels::DType::f64;
    auto net = std::make_unique<layerwise::Net>(models::CheckedModel(s), *backend, options);
    net->set_parameters(initial);
    net->input().data().copy_from(batch.x);
    net->labels().data().copy_from(batch.labels);
    return net;
  };
  auto train = make(spec, layerwise::Phase::train);
  const double a = train->forward(3, 1), b = train->forward(3, 1), c = train->forward(4, 1), d = train->forward(3, 2);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(a, d);
  auto test = make(spec, layerwise::Phase::test);
  auto reference = make(without, layerwise::Phase::train);
  EXPECT_EQ(test->forward(3, 1), reference->forward());
  EXPECT_EQ(test->forward(4, 2), reference->forward());
}

TEST(LayerwiseEngine, F32InputFeedsAnF64Engine) {
  auto backend = kernels::make_backend("reference");
  auto spec = testing::parse(testing::tiny_lenet_text());
  auto options = caffe_options(4);
  options.dtype = kernels::DType::f64;
  auto from_f32 = make_engine("layerwise", spec, *backend, options);
  auto from_f64 = make_engine("layerwise", spec, *backend, options);
  auto batch = testing::random_batch(spec, 4, kernels::DType::f32, 10);
  kernels::Tensor x64(batch.x.shape(), kernels::DType::f64);
  x64.copy_from(batch.x);
  EXPECT_EQ(from_f32->parameters()[0]->value.dtype(), kernels::DType::f64);
  for (int t = 0; t < 2; ++t) EXPECT_EQ(from_f32->train_step(batch.x, batch.labels, t), from_f64->train_step(x64, batch.labels, t));
}

TEST(LayerwiseNet, SplitsABranchAndRejectsUnknownInputs) {
  auto backend = kernels::make_backend("reference");
  // ip1 read by relu1 and ip2: Caffe's insert_splits puts a Split after ip1 (no longer an error).
  auto branched = testing::parse(testing::replaced(testing::tiny_lenet_text(), "layer ip2 inner_product",
                                                   "layer ip2 inner_product input=ip1"));
  const layerwise::Net split_net(models::CheckedModel(branched), *backend, {});
  int splits = 0;
  for (const auto& layer : split_net.layers())
    if (std::string(layer->type()) == "Split") {
      ++splits;
      EXPECT_EQ(layer->name(), "ip1_ip1_0_split");
    }
  EXPECT_EQ(splits, 1);
  layerwise::NetOptions options;
  options.batch = 0;
  auto spec = testing::parse(testing::tiny_lenet_text());
  expect_error<std::invalid_argument>([&] { layerwise::Net(models::CheckedModel(spec), *backend, options); }, {"batch size 0"});
  // Specs built in code: an empty input means the previous layer.
  auto in_code = spec;
  for (auto& layer : in_code.layers) layer.inputs.clear();
  EXPECT_NO_THROW(layerwise::Net(models::CheckedModel(in_code), *backend, {}));
  auto duplicate = spec;
  duplicate.layers[2].name = "conv1";
  expect_error<std::invalid_argument>([&] { layerwise::Net(models::CheckedModel(duplicate), *backend, {}); }, {"conv1", "used twice"});
  auto unknown = spec;
  unknown.layers[4].inputs = {"conv9"};
  expect_error<std::invalid_argument>([&] { layerwise::Net(models::CheckedModel(unknown), *backend, {}); }, {"ip1", "'conv9'"});
  auto no_loss = spec;
  no_loss.layers.pop_back();
  expect_error<std::invalid_argument>([&] { layerwise::Net(models::CheckedModel(no_loss), *backend, {}); }, {"ip2", "must be a loss"});
  auto wrong_classes = spec;
  wrong_classes.classes = 5;
  expect_error<std::invalid_argument>([&] { layerwise::Net(models::CheckedModel(wrong_classes), *backend, {}); }, {"loss", "[1, 3]", "[N, 5]"});
}

TEST(LayerwiseEngine, BadInputGivesClearErrors) {
  auto backend = kernels::make_backend("reference");
  auto spec = testing::parse(testing::tiny_lenet_text());
  expect_error<std::invalid_argument>([&] { make_engine("layerwise", spec, *backend, caffe_options(0)); },
                                      {"batch size 0"});
  expect_error<std::invalid_argument>(
      [&] { make_engine("layerwise", spec, *backend, caffe_options(-3)); }, {"batch size -3"});
  auto bad_optimizer = caffe_options(4);
  bad_optimizer.optimizer.lr.policy = "poly";
  expect_error<std::invalid_argument>([&] { make_engine("layerwise", spec, *backend, bad_optimizer); }, {"poly"});

  auto engine = make_engine("layerwise", spec, *backend, caffe_options(4));
  auto batch = testing::random_batch(spec, 4, kernels::DType::f32, 1);
  batch.labels.set(2, 3);
  expect_error<std::invalid_argument>([&] { engine->train_step(batch.x, batch.labels, 0); },
                                      {"label 3", "sample 2", "classes 0..2"});
  testing::expect_bad_batches_rejected(*engine, batch);
}

TEST(LayerwiseEngine, NanLossStopsWithTheIteration) {
  auto backend = kernels::make_backend("reference");
  auto spec = testing::parse(testing::tiny_lenet_text());
  auto engine = make_engine("layerwise", spec, *backend, caffe_options(4));
  auto batch = testing::random_batch(spec, 4, kernels::DType::f32, 2);
  testing::expect_nan_loss_stops_before_the_update(*engine, batch);
}

TEST(LayerwiseEngine, EvaluateUsesTheTrainedWeightsAtAnyBatchSize) {
  auto backend = kernels::make_backend("reference");
  auto spec = testing::parse(testing::replaced(testing::tiny_lenet_text(), "layer ip2",
                                               "layer drop dropout keep=0.5\nlayer ip2"));
  auto engine = make_engine("layerwise", spec, *backend, caffe_options(4));
  auto big = testing::random_batch(spec, 10, kernels::DType::f32, 3);
  EvalResult first = engine->evaluate(big.x, big.labels);
  EXPECT_TRUE(std::isfinite(first.loss));
  EXPECT_GE(first.correct, 0);
  EXPECT_LE(first.correct, 10);
  // Test mode: no dropout, so the evaluation is repeatable.
  EvalResult again = engine->evaluate(big.x, big.labels);
  EXPECT_EQ(again.loss, first.loss);
  auto small = testing::random_batch(spec, 4, kernels::DType::f32, 4);
  engine->train_step(small.x, small.labels, 0);
  EvalResult trained = engine->evaluate(big.x, big.labels);
  EXPECT_NE(trained.loss, first.loss) << "the test net must share the train net's weights";
  // The correct count is the number of rows whose top score is the label.
  auto one = testing::random_batch(spec, 3, kernels::DType::f32, 5);
  EvalResult three = engine->evaluate(one.x, one.labels);
  std::int64_t correct = 0;
  for (int n = 0; n < 3; ++n) {
    kernels::Tensor row = one.x.slice0(n, n + 1).clone();
    int best = -1;
    double best_loss = 1e300;
    for (int k = 0; k < 3; ++k) {  // the label with the smallest loss is the top-1 class
      kernels::Tensor label({1}, kernels::DType::i32);
      label.set(0, k);
      double loss = engine->evaluate(row, label).loss;
      if (loss < best_loss) best_loss = loss, best = k;
    }
    correct += best == one.labels.at(n);
  }
  EXPECT_EQ(three.correct, correct);
}

TEST(LayerwiseEngine, NoAllocationInsideTrainStepAfterTheFirstSteps) {
  auto backend = kernels::make_backend("reference");
  auto spec = testing::parse(testing::replaced(testing::tiny_lenet_text(), "layer ip2",
                                               "layer drop dropout keep=0.5\nlayer ip2"));
  auto engine = make_engine("layerwise", spec, *backend, caffe_options(8));
  auto batch = testing::random_batch(spec, 8, kernels::DType::f32, 6);
  auto test_batch = testing::random_batch(spec, 20, kernels::DType::f32, 7);
  engine->train_step(batch.x, batch.labels, 0);
  engine->evaluate(test_batch.x, test_batch.labels);
  engine->train_step(batch.x, batch.labels, 1);
  engine->evaluate(test_batch.x, test_batch.labels);
  const auto before = kernels::cpu_allocator().stats();
  for (int t = 2; t < 8; ++t) {
    engine->train_step(batch.x, batch.labels, t);
    if (t % 3 == 0) engine->evaluate(test_batch.x, test_batch.labels);
  }
  const auto after = kernels::cpu_allocator().stats();
  EXPECT_EQ(after.allocations, before.allocations);
  EXPECT_EQ(after.live_bytes, before.live_bytes);
}

}  // namespace
}  // namespace ablate::graph
