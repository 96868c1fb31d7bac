// Sharded evaluation (bench/run/test_pass.h): in a data-parallel run each rank
// evaluates every ranks-th batch of the test pass and the counts and loss sums are reduced, so
// every rank reports the accuracy of the unsharded pass exactly (the loss up to the order of
// the sum) while evaluating only its share of the images. The engines are fresh and seeded
// alike, so their weights are the same on every rank; an odd set size gives a short last
// batch, and Caffe's test_iter count wraps around the set.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "bench/run/test_pass.h"
#include "datasets/synthetic.h"
#include "graph/distributed/communicator.h"
#include "kernels/registry.h"
#include "models/model_spec.h"

namespace ablate::graph::distributed {
namespace {

const char* kModel =
    "model tiny_eval\n"
    "input 1 8 8\n"
    "classes 4\n"
    "layer conv1 convolution outputs=4 kernel=3 weight_init=xavier bias_init=constant:0.1\n"
    "layer relu1 relu\n"
    "layer ip1 inner_product outputs=4 weight_init=xavier bias_init=constant:0\n"
    "layer loss softmax_loss\n";

// An engine that counts the images it is asked to evaluate, forwarding everything.
class CountingEngine final : public Engine {
 public:
  explicit CountingEngine(std::unique_ptr<Engine> inner) : inner_(std::move(inner)) {}
  std::string strategy() const override { return inner_->strategy(); }
  double train_step(const kernels::Tensor& x, const kernels::Tensor& l, std::int64_t it) override {
    return inner_->train_step(x, l, it);
  }
  EvalResult evaluate(const kernels::Tensor& x, const kernels::Tensor& labels) override {
    images += x.dim(0);
    return inner_->evaluate(x, labels);
  }
  std::vector<Parameter*> parameters() override { return inner_->parameters(); }
  std::vector<StateTensor> state_tensors() override { return inner_->state_tensors(); }
  kernels::Backend& backend() override { return inner_->backend(); }
  std::int64_t images = 0;

 private:
  std::unique_ptr<Engine> inner_;
};

class ShardedEvaluation : public ::testing::TestWithParam<std::string> {};

TEST_P(ShardedEvaluation, EveryRankGetsTheWholePassFromItsShare) {
  const models::ModelSpec spec = models::parse_model(kModel, "tiny_eval.model");
  const datasets::ImageSet test = datasets::make_synthetic(205, 1, 8, 8, 4, 7, "test205");
  const datasets::Transform transform = datasets::parse_transform("scale:1/255", test);
  auto backend = kernels::make_backend("reference", 1);
  EngineOptions options;
  options.batch = 20;
  options.seed = 11;
  CountingEngine engine(make_engine(GetParam(), spec, *backend, options));
  // batches: 0 = the whole set (11 batches, the last of 5 images); 7 = Caffe's test_iter, 140
  // images; 13 = 260 images, wrapping around the set.
  for (std::int64_t batches : {0, 7, 13}) {
    engine.images = 0;
    const bench::run::TestSummary whole = bench::run::test_pass(engine, test, transform, 20, batches, kernels::DType::f32);
    const std::int64_t all = engine.images;
    engine.images = 0;
    const bench::run::TestSummary shard =
        bench::run::test_pass(engine, test, transform, 20, batches, kernels::DType::f32, {rank(), size()});
    EXPECT_EQ(shard.images, whole.images) << batches << " batches";
    EXPECT_EQ(shard.accuracy, whole.accuracy) << batches << " batches: the counts are exact";
    EXPECT_NEAR(shard.loss, whole.loss, 1e-12 * std::abs(whole.loss)) << batches << " batches";
    // This rank evaluated its batches only: every size()-th from its own.
    std::int64_t mine = 0;
    for (std::int64_t start = rank() * 20; start < all; start += size() * 20) mine += std::min<std::int64_t>(20, all - start);
    EXPECT_EQ(engine.images, mine) << batches << " batches";
    EXPECT_EQ(allreduce_sum(static_cast<double>(engine.images)), static_cast<double>(all)) << "the shares tile the pass";
    EXPECT_GT(whole.accuracy, 0.0);
  }
  EXPECT_THROW(bench::run::test_pass(engine, test, transform, 20, 0, kernels::DType::f32, {2, 2}), std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(Strategies, ShardedEvaluation, ::testing::Values("layerwise", "static"));

}  // namespace
}  // namespace ablate::graph::distributed
