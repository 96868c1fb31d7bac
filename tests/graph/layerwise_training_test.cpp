// A short layer-wise training run on synthetic data (datasets::make_synthetic, pixels
// scaled by 1/255, Caffe's LeNet solver settings): the loss must fall clearly and the test
// accuracy rise above chance.
#include <numeric>
#include <vector>

#include <gtest/gtest.h>

#include "datasets/synthetic.h"
#include "graph/engine.h"
#include "graph_test_util.h"
#include "kernels/registry.h"

namespace ablate::graph {
namespace {

TEST(LayerwiseTraining, LossFallsOnSyntheticData) {
  auto backend = kernels::make_backend("reference");
  auto spec = testing::parse(testing::replaced(
      testing::replaced(testing::tiny_lenet_text(), "classes 3", "classes 4"), "ip2 inner_product outputs=3",
      "ip2 inner_product outputs=4"));
  auto train = datasets::make_synthetic(612, 1, 12, 12, 4, 21);  // one seed: one set of class prototypes
  const auto test = datasets::split_tail(train, 100, "synthetic/test");
  EngineOptions options;
  options.batch = 16;
  options.seed = 3;
  options.optimizer.type = "caffe_sgd";
  options.optimizer.lr.policy = "inv";
  options.optimizer.lr.base_lr = 0.05;
  options.optimizer.lr.gamma = 1e-4;
  options.optimizer.lr.power = 0.75;
  options.optimizer.momentum = 0.9;
  options.optimizer.weight_decay = 5e-4;
  auto engine = make_engine("layerwise", spec, *backend, options);
  const double scale = 1.0 / 255.0;
  auto test_batch = testing::image_batch(test, 0, 100, scale);
  const EvalResult before = engine->evaluate(test_batch.x, test_batch.labels);

  std::vector<double> losses;
  const int steps = 80;
  for (int t = 0; t < steps; ++t) {
    auto batch = testing::image_batch(train, t * 16, 16, scale);
    losses.push_back(engine->train_step(batch.x, batch.labels, t));
  }
  const double last10 = std::accumulate(losses.end() - 10, losses.end(), 0.0) / 10;
  EXPECT_LT(last10, 0.5 * losses.front()) << "first loss " << losses.front() << ", mean of the last 10 " << last10;
  const EvalResult after = engine->evaluate(test_batch.x, test_batch.labels);
  EXPECT_LT(after.loss, before.loss);
  EXPECT_GT(after.correct, 50) << "accuracy on 100 test images of 4 classes (chance: 25)";
}

}  // namespace
}  // namespace ablate::graph
