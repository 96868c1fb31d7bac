// An engine restored from a checkpoint continues exactly as the engine that was saved:
// the same losses, bit for bit, and the same weights (reference backend, with momentum and
// a weight average so that every kind of state matters); another model is refused.
#include <gtest/gtest.h>

#include "graph/engine.h"
#include "graph/engine_checkpoint.h"
#include "graph_test_util.h"
#include "kernels/registry.h"

namespace ablate::graph {
namespace {

EngineOptions options() {
  EngineOptions o;
  o.dtype = kernels::DType::f64;
  o.batch = 3;
  o.seed = 11;
  o.optimizer.type = "caffe_sgd";
  o.optimizer.lr.base_lr = 0.05;
  o.optimizer.momentum = 0.9;
  o.optimizer.weight_decay = 1e-3;
  o.weight_average_decay = 0.99;
  return o;
}

TEST(EngineCheckpoint, RestoredLayerwiseEngineContinuesBitForBit) {
  const models::ModelSpec spec = testing::parse(testing::tiny_lenet_text());
  auto backend = kernels::make_backend("reference");
  auto original = make_engine("layerwise", spec, *backend, options());
  for (int it = 0; it < 4; ++it) {
    const auto b = testing::random_batch(spec, 3, kernels::DType::f64, 100 + it);
    original->train_step(b.x, b.labels, it);
  }
  Checkpoint saved;
  capture_engine_state(*original, saved);
  EXPECT_EQ(saved.meta("optimizer_updates"), "4");

  EngineOptions other_seed = options();
  other_seed.seed = 99;  // different initial weights: everything must come from the checkpoint
  auto resumed = make_engine("layerwise", spec, *backend, other_seed);
  restore_engine_state(*resumed, saved);
  const auto test = testing::random_batch(spec, 5, kernels::DType::f64, 7);
  EXPECT_EQ(resumed->evaluate(test.x, test.labels).loss, original->evaluate(test.x, test.labels).loss);
  for (int it = 4; it < 8; ++it) {
    const auto b = testing::random_batch(spec, 3, kernels::DType::f64, 100 + it);
    EXPECT_EQ(resumed->train_step(b.x, b.labels, it), original->train_step(b.x, b.labels, it)) << "iteration " << it;
  }
  auto a = original->parameters(), r = resumed->parameters();
  for (std::size_t k = 0; k < a.size(); ++k)
    for (std::int64_t i = 0; i < a[k]->value.numel(); ++i) ASSERT_EQ(a[k]->value.at(i), r[k]->value.at(i));
}

TEST(EngineCheckpoint, AnotherModelIsRefusedAndLeavesTheEngineUnchanged) {
  const models::ModelSpec spec = testing::parse(testing::tiny_lenet_text());
  const models::ModelSpec wider = testing::parse(testing::replaced(testing::tiny_lenet_text(), "outputs=8", "outputs=9"));
  auto backend = kernels::make_backend("reference");
  auto engine = make_engine("layerwise", spec, *backend, options());
  auto other = make_engine("layerwise", wider, *backend, options());
  Checkpoint saved;
  capture_engine_state(*engine, saved);
  const double before = other->parameters()[0]->value.at(0);
  testing::expect_error<std::invalid_argument>([&] { restore_engine_state(*other, saved); },
                                               {"another model", "ip1.weight", "[8, 16]", "[9, 16]"});
  EXPECT_EQ(other->parameters()[0]->value.at(0), before);
}

}  // namespace
}  // namespace ablate::graph
