// graph/engine_gradient_check.h on every strategy: the gradient each strategy hands to its
// update agrees with central differences of its training loss on the tiny LeNet in f64, for
// caffe_sgd, torch_sgd and Adam; a gradient caught from the wrong parameter would not; an
// unknown parameter and an f32 engine are errors naming them. The smallest Vision Transformer
// (docs/models/vit-block.model) likewise, parameter by parameter through the patch
// embedding, position embedding, layer norms, the attention's four projections and the MLP.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "graph/engine.h"
#include "graph/engine_gradient_check.h"
#include "graph_test_util.h"
#include "kernels/registry.h"

namespace ablate::graph {
namespace {

EngineOptions options(const std::string& optimizer, kernels::DType dtype = kernels::DType::f64) {
  EngineOptions o;
  o.dtype = dtype;
  o.batch = 2;
  o.seed = 3;
  o.optimizer.type = optimizer;
  o.optimizer.lr.base_lr = 0.1;
  o.optimizer.momentum = optimizer == "adam" ? 0.0 : 0.9;
  o.disabled_passes = {"update_fusion"};  // static: the gradients stay whole, to be caught (the others ignore it)
  return o;
}

// `count` elements of parameter `name`: the analytic gradient within 1e-6 of central
// differences of step `eps`, and not all of them zero.
void expect_central_differences(Engine& engine, const std::string& name, const testing::Batch& batch,
                                std::int64_t count, double eps = 1e-6) {
  const auto samples = check_parameter_gradient(engine, name, batch.x, batch.labels, 0, count, eps);
  ASSERT_EQ(samples.size(), static_cast<std::size_t>(count));
  double largest = 0;
  for (const GradientSample& s : samples) {
    EXPECT_LT(s.relative_error, 1e-6) << s.index << ": " << s.analytic << " vs " << s.numeric;
    largest = std::max(largest, std::abs(s.analytic));
  }
  EXPECT_GT(largest, 1e-6) << "a check of zero gradients proves nothing";
}

class EngineGradientCheck : public ::testing::TestWithParam<std::string> {};

TEST_P(EngineGradientCheck, AnalyticEqualsCentralDifferences) {
  const models::ModelSpec spec = testing::parse(testing::tiny_lenet_text());
  const auto batch = testing::random_batch(spec, 2, kernels::DType::f64, 11);
  for (const std::string optimizer : {"caffe_sgd", "torch_sgd", "adam"}) {
    auto backend = kernels::make_backend("reference");
    auto engine = make_engine(GetParam(), spec, *backend, options(optimizer));
    for (const std::string name : {"conv1.weight", "ip1.bias", "ip2.weight"}) {
      SCOPED_TRACE(optimizer + " " + name);
      expect_central_differences(*engine, name, batch, 6);
    }
  }
}

// The eigen and openblas backends run both of the tiny LeNet's convolutions (1 -> 4 and 4 -> 4
// channels) through their few-channel direct loops (kernels/cpu/conv_few_channels.h), on 2
// threads: conv2's backward data carries conv1's weight gradient.
TEST_P(EngineGradientCheck, TheFewChannelLoopsGiveTheGradient) {
  const models::ModelSpec spec = testing::parse(testing::tiny_lenet_text());
  const auto batch = testing::random_batch(spec, 3, kernels::DType::f64, 11);
  for (const std::string backend_name : {"eigen", "openblas"}) {
    auto backend = kernels::make_backend(backend_name, 2);
    bool direct = false;
    for (const auto& [key, value] : backend->choices()) direct = direct || (key == "conv_few_channels" && value == "direct");
    EXPECT_TRUE(direct) << backend_name << " does not take the few-channel loops";
    auto engine = make_engine(GetParam(), spec, *backend, options("caffe_sgd"));
    for (const std::string name : {"conv1.weight", "conv1.bias", "conv2.weight"}) {
      SCOPED_TRACE(backend_name + " " + name);
      expect_central_differences(*engine, name, batch, 4);
    }
  }
}

// Attention's key bias is left out: its gradient is 0 in exact arithmetic (softmax ignores a
// constant added to a row of scores), so central differences see only rounding. Steps of 1e-5:
// with 1e-6 the difference's rounding (~1e-10 of a loss near 2.3) is 1.6e-6 of the smallest
// gradients checked (~4e-5).
TEST_P(EngineGradientCheck, VisionTransformerBlock) {
  const models::ModelSpec spec = models::load_model(std::string(ABLATE_SOURCE_DIR) + "/docs/models/vit-block.model");
  const auto batch = testing::random_batch(spec, 2, kernels::DType::f64, 11);
  for (const std::string backend_name : {"reference", "openblas"}) {
    auto backend = kernels::make_backend(backend_name, 2);
    auto engine = make_engine(GetParam(), spec, *backend, options("torch_sgd"));
    for (const std::string name : {"patch.weight", "pos.weight", "b1_norm1.weight", "b1_norm1.bias", "b1_attn.query_weight",
                                   "b1_attn.query_bias", "b1_attn.key_weight", "b1_attn.value_weight",
                                   "b1_attn.value_bias", "b1_attn.out_weight", "b1_attn.out_bias", "b1_fc1.weight",
                                   "b1_fc2.bias", "norm.weight", "fc.weight"}) {
      SCOPED_TRACE(backend_name + " " + name);
      expect_central_differences(*engine, name, batch, 4, 1e-5);
    }
  }
}

// With dropout on the attention weights (keep=0.7): the mask is fixed by the seed and the
// iteration, so the training loss stays a smooth function of the weights and every strategy's
// gradient goes through the same mask (p * mask in the forward, dp * mask in the backward).
TEST_P(EngineGradientCheck, VisionTransformerBlockWithAttentionDropout) {
  models::ModelSpec spec = models::load_model(std::string(ABLATE_SOURCE_DIR) + "/docs/models/vit-block.model");
  for (models::LayerSpec& layer : spec.layers)
    if (layer.type == "attention") layer.params["keep"] = "0.7";
  const auto batch = testing::random_batch(spec, 2, kernels::DType::f64, 11);
  auto backend = kernels::make_backend("reference", 1);
  auto engine = make_engine(GetParam(), spec, *backend, options("torch_sgd"));
  for (const std::string name : {"b1_attn.query_weight", "b1_attn.key_weight", "b1_attn.value_weight", "b1_attn.value_bias",
                                 "b1_norm1.weight", "patch.weight"}) {
    SCOPED_TRACE(name);
    expect_central_differences(*engine, name, batch, 4, 1e-5);
  }
}

TEST_P(EngineGradientCheck, ParametersAreBackWhereTheyWere) {
  const models::ModelSpec spec = testing::parse(testing::tiny_lenet_text());
  const auto batch = testing::random_batch(spec, 2, kernels::DType::f64, 11);
  auto backend = kernels::make_backend("reference");
  auto engine = make_engine(GetParam(), spec, *backend, options("caffe_sgd"));
  const kernels::Tensor before = engine->parameters()[0]->value.clone();
  check_parameter_gradient(*engine, "conv1.weight", batch.x, batch.labels, 0, 3);
  for (std::int64_t i = 0; i < before.numel(); ++i) EXPECT_EQ(engine->parameters()[0]->value.at(i), before.at(i));
}

TEST_P(EngineGradientCheck, UnknownParameterAndF32AreErrors) {
  const models::ModelSpec spec = testing::parse(testing::tiny_lenet_text());
  const auto batch = testing::random_batch(spec, 2, kernels::DType::f64, 11);
  auto backend = kernels::make_backend("reference");
  auto engine = make_engine(GetParam(), spec, *backend, options("caffe_sgd"));
  testing::expect_error<std::invalid_argument>(
      [&] { check_parameter_gradient(*engine, "conv9.weight", batch.x, batch.labels, 0, 3); }, {"conv9.weight", "conv1.weight"});
  auto single = make_engine(GetParam(), spec, *backend, options("caffe_sgd", kernels::DType::f32));
  const auto batch32 = testing::random_batch(spec, 2, kernels::DType::f32, 11);
  testing::expect_error<std::invalid_argument>(
      [&] { check_parameter_gradient(*single, "conv1.weight", batch32.x, batch32.labels, 0, 3); }, {"conv1.weight", "f64"});
}

INSTANTIATE_TEST_SUITE_P(Strategies, EngineGradientCheck, ::testing::Values("layerwise", "dynamic", "static"));

}  // namespace
}  // namespace ablate::graph
