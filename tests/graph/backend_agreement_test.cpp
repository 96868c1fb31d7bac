// The layer-wise engine on every CPU backend of the build (eigen, openblas, onednn) against
// the reference backend: the same model, initial weights and batches give the same losses
// to 1e-4 relative over a few steps (dropout included: its masks are backend-independent),
// and no backend allocates inside train_step once the batch size has been seen.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "graph/engine.h"
#include "graph_test_util.h"
#include "kernels/registry.h"

namespace ablate::graph {
namespace {

struct Losses {
  std::vector<double> train;
  EvalResult eval;
};

models::ModelSpec agreement_model() {
  std::string text = testing::replaced(testing::tiny_lenet_text(), "layer ip2", "layer drop dropout keep=0.7\nlayer ip2");
  text = testing::replaced(text, "layer conv2", "layer norm1 lrn size=3 alpha=0.5 beta=0.75 k=2\nlayer conv2");
  return testing::parse(text);
}

Losses train_on(const std::string& backend_name, int steps, std::int64_t* allocations_in_later_steps = nullptr) {
  auto backend = kernels::make_backend(backend_name, 1);
  auto spec = agreement_model();
  EngineOptions options;
  options.batch = 8;
  options.seed = 9;
  options.optimizer.type = "caffe_sgd";
  options.optimizer.lr.base_lr = 0.05;
  options.optimizer.momentum = 0.9;
  options.optimizer.weight_decay = 5e-4;
  auto engine = make_engine("layerwise", spec, *backend, options);
  std::vector<testing::Batch> batches;
  for (int t = 0; t < steps; ++t) batches.push_back(testing::random_batch(spec, 8, kernels::DType::f32, 100 + t));
  Losses out;
  std::int64_t before = 0;
  for (int t = 0; t < steps; ++t) {
    if (t == 2) before = kernels::cpu_allocator().stats().allocations;
    out.train.push_back(engine->train_step(batches[t].x, batches[t].labels, t));
  }
  if (allocations_in_later_steps) *allocations_in_later_steps = kernels::cpu_allocator().stats().allocations - before;
  auto test = testing::random_batch(spec, 12, kernels::DType::f32, 7);
  out.eval = engine->evaluate(test.x, test.labels);
  return out;
}

TEST(BackendAgreement, EveryCpuBackendGivesTheReferenceLosses) {
  const int steps = 4;
  const Losses reference = train_on("reference", steps);
  int compared = 0;
  for (const std::string& name : kernels::backend_names()) {
    if (name == "reference" || name == "cuda") continue;
    SCOPED_TRACE(name);
    std::int64_t allocations = -1;
    const Losses other = train_on(name, steps, &allocations);
    for (int t = 0; t < steps; ++t)
      EXPECT_NEAR(other.train[t], reference.train[t], 1e-4 * std::abs(reference.train[t])) << "step " << t;
    EXPECT_NEAR(other.eval.loss, reference.eval.loss, 1e-4 * std::abs(reference.eval.loss));
    EXPECT_EQ(allocations, 0) << "tensor allocations inside train_step after the first two steps";
    ++compared;
  }
  EXPECT_GE(compared, 3) << "expected the eigen, openblas and onednn backends in this build";
}

}  // namespace
}  // namespace ablate::graph
