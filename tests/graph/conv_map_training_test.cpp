// A Torch-CIFAR-10-like net (the demo's conv_map 3 -> 16 with fan_in 1, tanh, max-pool 2,
// conv_map 16 -> 256 with fan_in 4, tanh, max-pool 2, linear, tanh, linear, log-softmax + NLL),
// scaled to 20x20 inputs, trains as a layer-wise net with Torch's SGD: on a fixed random
// batch the loss falls steadily, on the reference backend and on openblas (the CPU backends'
// shared conv_map loops), and the connection tables live in the layers.
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "graph/engine.h"
#include "graph/layerwise/conv_map_layer.h"
#include "graph/layerwise/net.h"
#include "graph_test_util.h"
#include "kernels/registry.h"
#include "models/layer_params.h"

namespace ablate::graph {
namespace {

std::string torch_cifar_like_text() {
  return "model torch_cifar_small\n"
         "input 3 20 20\n"
         "classes 10\n"
         "layer conv1 conv_map outputs=16 kernel=5 fan_in=1 weight_init=uniform_fan_in bias_init=uniform_fan_in\n"
         "layer t1 tanh\n"
         "layer pool1 pooling mode=max kernel=2 stride=2\n"
         "layer conv2 conv_map outputs=256 kernel=5 fan_in=4 weight_init=uniform_fan_in bias_init=uniform_fan_in\n"
         "layer t2 tanh\n"
         "layer pool2 pooling mode=max kernel=2 stride=2\n"
         "layer fc1 inner_product outputs=32 weight_init=uniform_fan_in bias_init=uniform_fan_in\n"
         "layer t3 tanh\n"
         "layer fc2 inner_product outputs=10 weight_init=uniform_fan_in bias_init=uniform_fan_in\n"
         "layer prob log_softmax\n"
         "layer loss nll_loss\n";
}

class ConvMapTraining : public ::testing::TestWithParam<std::string> {};

TEST_P(ConvMapTraining, LossFallsOnAFixedRandomBatch) {
  auto backend = kernels::make_backend(GetParam());
  const models::ModelSpec spec = testing::parse(torch_cifar_like_text());
  EngineOptions options;
  options.batch = 8;
  options.seed = 5;
  options.optimizer.type = "torch_sgd";
  options.optimizer.lr.base_lr = 0.2;
  auto engine = make_engine("layerwise", spec, *backend, options);
  const auto batch = testing::random_batch(spec, 8, kernels::DType::f32, 17);
  std::vector<double> losses;
  for (int t = 0; t < 12; ++t) losses.push_back(engine->train_step(batch.x, batch.labels, t));
  for (double l : losses) ASSERT_TRUE(std::isfinite(l));
  EXPECT_GT(losses.front(), 1.5) << "ten classes start near log(10)";
  EXPECT_LT(losses.back(), 0.75 * losses.front()) << "first loss " << losses.front() << ", last " << losses.back();
  int rises = 0;
  for (std::size_t i = 1; i < losses.size(); ++i) rises += losses[i] > losses[i - 1];
  EXPECT_LE(rises, 1) << "the loss of a fixed batch should fall nearly every step";
}

INSTANTIATE_TEST_SUITE_P(Backends, ConvMapTraining, ::testing::Values("reference", "openblas"));

// The layer holds models::connection_table's pairs as an i32 [T, 2] tensor, and its weight
// has one kernel per connection.
TEST(ConvMapLayer, HoldsTheModelsTable) {
  auto backend = kernels::make_backend("reference");
  const models::ModelSpec spec = testing::parse(torch_cifar_like_text());
  layerwise::NetOptions options;
  options.batch = 2;
  layerwise::Net net(models::CheckedModel(spec), *backend, options);
  const layerwise::ConvMapLayer* conv2 = nullptr;
  for (const auto& layer : net.layers())
    if (layer->name() == "conv2") conv2 = dynamic_cast<const layerwise::ConvMapLayer*>(layer.get());
  ASSERT_NE(conv2, nullptr);
  const kernels::Tensor& table = conv2->table();
  EXPECT_EQ(table.dtype(), kernels::DType::i32);
  EXPECT_EQ(table.shape(), (kernels::Shape{1024, 2}));
  const auto expected = models::connection_table(spec.layer("conv2"), 16);
  for (std::int64_t i = 0; i < table.numel(); ++i)
    EXPECT_EQ(table.data<std::int32_t>()[i], expected[static_cast<std::size_t>(i)]) << "element " << i;
  EXPECT_EQ(conv2->blobs()[0]->shape(), (kernels::Shape{1024, 5, 5}));
  EXPECT_EQ(conv2->blobs()[1]->shape(), (kernels::Shape{256}));
}

}  // namespace
}  // namespace ablate::graph
