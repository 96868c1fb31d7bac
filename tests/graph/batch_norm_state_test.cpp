// BatchNorm's running statistics as engine state (graph::StateTensor), in every strategy of
// the table, f64 on `reference`:
//   - the frameworks' rules by hand: a batch_norm on the model input has the batch's mean and
//     variance per channel of the images, so after two steps the state is PyTorch's
//     (momentum 0.1, unbiased variance) or Caffe's (sums and scale factor, fraction 0.999)
//     exactly, whatever the optimizer's weight decay and momentum do to the parameters: the
//     statistics are not parameters and no optimizer state is made for them;
//   - evaluation reads them (changing them changes the test loss, not the training loss) and
//     leaves them as they are;
//   - a checkpoint holds them and a restored engine continues bit for bit;
//   - evaluation with weight averaging averages the parameters only and uses the running
//     statistics as trained (TF's ExponentialMovingAverage over tf.trainable_variables());
//   - Torch's one-sample-at-a-time mode refuses a batch_norm.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "graph/engine.h"
#include "graph/engine_checkpoint.h"
#include "graph/optim/weight_average.h"
#include "graph_test_util.h"
#include "kernels/registry.h"

namespace ablate::graph {
namespace {

using testing::replaced;

constexpr std::int64_t kBatch = 3;

// bn0 normalises the images themselves; bn1 the convolution's planes, bn2 the features.
std::string model_text(const std::string& style) {
  const std::string keys = style == "caffe" ? " momentum_style=caffe" : "";
  return "model tiny_bn\ninput 2 6 6\nclasses 3\n"
         "layer bn0 batch_norm" + keys + "\n"
         "layer conv1 convolution outputs=4 kernel=3 bias=false weight_init=gaussian:0.4\n"
         "layer bn1 batch_norm" + keys + "\n"
         "layer g1 gelu\n"
         "layer pool1 pooling mode=max kernel=2 stride=2\n"
         "layer ip1 inner_product outputs=5 weight_init=gaussian:0.3 bias_init=gaussian:0.1\n"
         "layer bn2 batch_norm" + keys + "\n"
         "layer g2 gelu approximate=tanh\n"
         "layer ip2 inner_product outputs=3 weight_init=gaussian:0.3 bias_init=gaussian:0.1\n"
         "layer loss softmax_loss\n";
}

EngineOptions options() {
  EngineOptions o;
  o.dtype = kernels::DType::f64;
  o.batch = kBatch;
  o.seed = 5;
  o.optimizer.type = "caffe_sgd";
  o.optimizer.lr.base_lr = 0.1;
  o.optimizer.momentum = 0.9;
  o.optimizer.weight_decay = 0.5;  // large: it would show on any state tensor it touched
  return o;
}

testing::Batch batch(const models::ModelSpec& spec, int step) {
  return testing::random_batch(spec, kBatch, kernels::DType::f64, 300 + static_cast<std::uint64_t>(step));
}

// The batch statistics of channel c of the images: mean and unbiased variance over N*H*W.
std::pair<double, double> image_statistics(const kernels::Tensor& x, std::int64_t c) {
  const std::int64_t n = x.dim(0), channels = x.dim(1), plane = x.dim(2) * x.dim(3);
  double sum = 0, squares = 0;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t k = 0; k < plane; ++k) sum += x.at((i * channels + c) * plane + k);
  const double m = static_cast<double>(n * plane), mean = sum / m;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t k = 0; k < plane; ++k) squares += std::pow(x.at((i * channels + c) * plane + k) - mean, 2);
  return {mean, squares / (m - 1)};
}

const kernels::Tensor& state_of(const std::vector<StateTensor>& state, const std::string& name) {
  for (const StateTensor& s : state)
    if (s.name == name) return s.value;
  throw std::invalid_argument("no state tensor " + name);
}

class BatchNormState : public ::testing::TestWithParam<std::string> {};

TEST_P(BatchNormState, FollowsTheFrameworksRuleAndIsNotTrained) {
  for (const std::string style : {"torch", "caffe"}) {
    SCOPED_TRACE(style);
    const models::ModelSpec spec = testing::parse(model_text(style));
    auto backend = kernels::make_backend("reference");
    auto engine = make_engine(GetParam(), spec, *backend, options());
    std::vector<std::string> names;
    for (const StateTensor& s : engine->state_tensors()) names.push_back(s.name);
    const std::vector<std::string> suffixes = style == "torch" ? std::vector<std::string>{"running_mean", "running_var"}
                                                               : std::vector<std::string>{"mean_sum", "var_sum", "scale_factor"};
    ASSERT_EQ(names.size(), 3 * suffixes.size());
    EXPECT_EQ(names[0], "bn0." + suffixes[0]);
    for (const Parameter* p : engine->parameters())
      EXPECT_EQ(p->name.find("running"), std::string::npos) << p->name << " is not a parameter";
    std::vector<std::pair<double, double>> stats[2];
    for (int step = 0; step < 2; ++step) {
      const auto b = batch(spec, step);
      for (std::int64_t c = 0; c < 2; ++c) stats[step].push_back(image_statistics(b.x, c));
      engine->train_step(b.x, b.labels, step);
    }
    const auto state = engine->state_tensors();
    for (std::size_t c = 0; c < 2; ++c) {
      const auto [mean1, var1] = stats[0][c];
      const auto [mean2, var2] = stats[1][c];
      const auto i = static_cast<std::int64_t>(c);
      if (style == "torch") {
        EXPECT_NEAR(state_of(state, "bn0.running_mean").at(i), 0.9 * (0.1 * mean1) + 0.1 * mean2, 1e-14);
        EXPECT_NEAR(state_of(state, "bn0.running_var").at(i), 0.9 * (0.9 + 0.1 * var1) + 0.1 * var2, 1e-14);
      } else {
        EXPECT_NEAR(state_of(state, "bn0.mean_sum").at(i), 0.999 * mean1 + mean2, 1e-14);
        EXPECT_NEAR(state_of(state, "bn0.var_sum").at(i), 0.999 * var1 + var2, 1e-14);
      }
    }
    if (style == "caffe") {
      EXPECT_DOUBLE_EQ(state_of(state, "bn0.scale_factor").at(0), 1.999);
    }
  }
}

TEST_P(BatchNormState, EvaluationReadsTheRunningStatisticsAndLeavesThem) {
  const models::ModelSpec spec = testing::parse(model_text("torch"));
  auto backend = kernels::make_backend("reference");
  auto engine = make_engine(GetParam(), spec, *backend, options());
  for (int step = 0; step < 3; ++step) {
    const auto b = batch(spec, step);
    engine->train_step(b.x, b.labels, step);
  }
  const auto test = batch(spec, 50);
  const double loss = engine->evaluate(test.x, test.labels).loss;
  std::vector<StateTensor> state = engine->state_tensors();
  const double kept = state[1].value.at(0);
  EXPECT_EQ(engine->evaluate(test.x, test.labels).loss, loss) << "evaluation changed what it reads";
  EXPECT_EQ(state[1].value.at(0), kept);
  state[1].value.set(0, kept * 4);  // bn0's running variance of channel 0
  EXPECT_NE(engine->evaluate(test.x, test.labels).loss, loss) << "evaluation does not read the running variance";
  state[1].value.set(0, kept);
  EXPECT_EQ(engine->evaluate(test.x, test.labels).loss, loss);
}

TEST_P(BatchNormState, ACheckpointHoldsThemAndTheRestoredEngineContinuesBitForBit) {
  for (const std::string style : {"torch", "caffe"}) {
    SCOPED_TRACE(style);
    const models::ModelSpec spec = testing::parse(model_text(style));
    auto backend = kernels::make_backend("reference");
    EngineOptions o = options();
    o.weight_average_decay = 0.9;
    auto original = make_engine(GetParam(), spec, *backend, o);
    for (int step = 0; step < 3; ++step) {
      const auto b = batch(spec, step);
      original->train_step(b.x, b.labels, step);
    }
    Checkpoint saved;
    capture_engine_state(*original, saved);
    for (const StateTensor& s : original->state_tensors()) {
      const kernels::Tensor& t = saved.tensor(s.name);
      for (std::int64_t i = 0; i < t.numel(); ++i) ASSERT_EQ(t.at(i), s.value.at(i)) << s.name;
    }
    o.seed = 77;  // other initial weights: everything must come from the checkpoint
    auto resumed = make_engine(GetParam(), spec, *backend, o);
    restore_engine_state(*resumed, saved);
    const auto test = batch(spec, 60);
    EXPECT_EQ(resumed->evaluate(test.x, test.labels).loss, original->evaluate(test.x, test.labels).loss);
    for (int step = 3; step < 6; ++step) {
      const auto b = batch(spec, step);
      EXPECT_EQ(resumed->train_step(b.x, b.labels, step), original->train_step(b.x, b.labels, step)) << step;
    }
    const auto a = original->state_tensors(), r = resumed->state_tensors();
    ASSERT_EQ(a.size(), r.size());
    for (std::size_t k = 0; k < a.size(); ++k)
      for (std::int64_t i = 0; i < a[k].value.numel(); ++i) ASSERT_EQ(a[k].value.at(i), r[k].value.at(i)) << a[k].name;
  }
}

TEST_P(BatchNormState, WeightAveragingAveragesTheParametersAndUsesTheStatisticsAsTrained) {
  const models::ModelSpec spec = testing::parse(model_text("torch"));
  auto backend = kernels::make_backend("reference");
  EngineOptions averaged = options();
  averaged.weight_average_decay = 0.5;
  auto engine = make_engine(GetParam(), spec, *backend, averaged);
  for (int step = 0; step < 4; ++step) {
    const auto b = batch(spec, step);
    engine->train_step(b.x, b.labels, step);
  }
  ASSERT_NE(engine->weight_average(), nullptr);
  EXPECT_EQ(engine->weight_average()->shadows().size(), engine->parameters().size());
  // The same evaluation by hand: an engine without averaging, given the shadows as its
  // parameters and the trained running statistics as its state.
  auto plain = make_engine(GetParam(), spec, *backend, options());
  const auto params = plain->parameters();
  for (std::size_t i = 0; i < params.size(); ++i) params[i]->value.copy_from(engine->weight_average()->shadows()[i]);
  const auto trained = engine->state_tensors();
  auto state = plain->state_tensors();
  for (std::size_t i = 0; i < state.size(); ++i) state[i].value.copy_from(trained[i].value);
  const auto test = batch(spec, 70);
  const EvalResult a = engine->evaluate(test.x, test.labels), b = plain->evaluate(test.x, test.labels);
  EXPECT_EQ(a.loss, b.loss);
  EXPECT_EQ(a.correct, b.correct);
  // and the averages do differ from the trained weights, so the comparison means something
  auto unaveraged = make_engine(GetParam(), spec, *backend, options());
  Checkpoint saved;
  capture_engine_state(*engine, saved);
  restore_engine_state(*unaveraged, saved);
  EXPECT_NE(unaveraged->evaluate(test.x, test.labels).loss, a.loss);
}

INSTANTIATE_TEST_SUITE_P(EveryStrategy, BatchNormState, ::testing::Values("layerwise", "dynamic", "static"));

TEST(BatchNormPerSample, TorchPerSampleModeIsRefused) {
  const models::ModelSpec spec = testing::parse(model_text("torch"));
  auto backend = kernels::make_backend("reference");
  EngineOptions o = options();
  o.per_sample = true;
  auto engine = make_engine("dynamic", spec, *backend, o);
  const auto b = batch(spec, 0);
  testing::expect_error<std::invalid_argument>([&] { engine->train_step(b.x, b.labels, 0); },
                                               {"layer 'bn0' (batch_norm)", "one sample at a time"});
}

}  // namespace
}  // namespace ablate::graph
