// A mixed-backend network (kernels::PlannedBackend built from a plan, bench/run/plan_measure.h)
// trains as a single-backend one: Caffe's LeNet in f64, every strategy, its layers spread over
// every host backend and lowering of the build, each convolution's weight gradient on another
// than its layer's; the losses of 10 SGD steps and the final weights
// agree with OpenBLAS alone to 1e-9 relative, and every planned layer ran on its backend.
#include <gtest/gtest.h>

#include <cmath>
#include <mutex>
#include <set>

#include "bench/run/plan_measure.h"
#include "graph/engine.h"
#include "kernels/op_label.h"
#include "kernels/registry.h"
#include "models/model_spec.h"

namespace ablate::bench::run {
namespace {

// Records the layers whose ops came through the observed backend.
class SeenLayers final : public kernels::OpObserver {
 public:
  void begin(kernels::OpCall&) override {}
  void end(const kernels::OpCall&, bool) override {
    const std::lock_guard<std::mutex> lock(mutex_);
    layers.insert(std::string(kernels::current_op_label().layer));
  }
  std::set<std::string> layers;

 private:
  std::mutex mutex_;
};

struct Trained {
  std::vector<double> losses;
  std::vector<kernels::Tensor> weights;
};

Trained train(const std::string& strategy, const models::ModelSpec& spec, kernels::Backend& backend, int steps) {
  graph::EngineOptions o;
  o.dtype = kernels::DType::f64;
  o.batch = 4;
  o.seed = 5;
  o.optimizer.type = "caffe_sgd";
  o.optimizer.lr.base_lr = 0.01;
  o.optimizer.momentum = 0.9;
  o.optimizer.weight_decay = 5e-4;
  auto engine = graph::make_engine(strategy, spec, backend, o);
  Trained out;
  for (int step = 0; step < steps; ++step) {
    kernels::Tensor x({4, 1, 28, 28}, kernels::DType::f64), labels({4}, kernels::DType::i32);
    for (std::int64_t i = 0; i < x.numel(); ++i) x.data<double>()[i] = std::sin(0.37 * static_cast<double>(i + 97 * step));
    for (int n = 0; n < 4; ++n) labels.data<std::int32_t>()[n] = (n + step) % 10;
    out.losses.push_back(engine->train_step(x, labels, step));
  }
  for (graph::Parameter* p : engine->parameters()) {
    kernels::Tensor copy(p->value.shape(), p->value.dtype());
    copy.copy_from(p->value);
    out.weights.push_back(std::move(copy));
  }
  return out;
}

TEST(PlannedTraining, MixedBackendNetworkTrainsAsOneBackendInF64) {
  const auto names = kernels::backend_names();
  if (std::find(names.begin(), names.end(), "openblas") == names.end()) GTEST_SKIP() << "no openblas in this build";
  const models::ModelSpec spec = models::load_model("lenet");
  BackendSettings settings;
  settings.name = "openblas";
  settings.options.threads = 2;
  // Every host choice of the build, dealt over the layers in turn.
  const std::vector<PlanChoice> choices = plan_candidates(settings);
  ASSERT_GE(choices.size(), 2u);
  LayerPlan plan;
  plan.fallback = {"openblas", std::nullopt, std::nullopt};
  plan.fallback.lowering = kernels::conv_lowerings_of("openblas").front();
  std::size_t next = 1;  // the first choice is reference: keep it to one layer, it is slow
  for (const models::LayerSpec& layer : spec.layers) {
    plan.rows.push_back({layer.name, choices[next % choices.size()], {}});
    next += 3;
    // A convolution's weight gradient on a choice of its own (kernels/planned_backend.h).
    if (layer.type == "convolution")
      plan.rows.push_back({kernels::PlannedBackend::weights_row(layer.name), choices[(next + 1) % choices.size()], {}});
  }
  std::set<std::string> used;
  for (const auto& row : plan.rows) used.insert(row.choice.label());
  ASSERT_GE(used.size(), 3u) << plan.summary();

  auto single = kernels::make_backend("openblas", 2);
  for (const std::string& strategy : graph::strategy_names()) {
    SCOPED_TRACE(strategy + " with plan " + plan.summary());
    auto planned = make_planned_backend(plan, spec, settings, true);
    SeenLayers seen;
    planned->set_observer(&seen);
    const Trained a = train(strategy, spec, *single, 10);
    const Trained b = train(strategy, spec, *planned, 10);
    EXPECT_NE(a.losses.front(), a.losses.back()) << "the model did not train";
    for (std::size_t i = 0; i < a.losses.size(); ++i)
      EXPECT_NEAR(b.losses[i], a.losses[i], 1e-9 * std::abs(a.losses[i])) << "step " << i;
    ASSERT_EQ(a.weights.size(), b.weights.size());
    for (std::size_t t = 0; t < a.weights.size(); ++t) {
      double scale = 1e-5, diff = 0;
      for (std::int64_t j = 0; j < a.weights[t].numel(); ++j) {
        scale = std::max(scale, std::abs(a.weights[t].at(j)));
        diff = std::max(diff, std::abs(a.weights[t].at(j) - b.weights[t].at(j)));
      }
      EXPECT_LE(diff, 1e-9 * scale) << "parameter " << t;
    }
    for (const auto& row : plan.rows) {
      if (!kernels::PlannedBackend::weights_layer(row.layer).empty()) continue;
      // The static graph's conv_pool_fusion folds pool1 into conv1: one op on conv1's backend.
      if (strategy == "static" && row.layer == "pool1")
        EXPECT_FALSE(seen.layers.count(row.layer)) << "pool1 ran apart from conv1";
      else
        EXPECT_TRUE(seen.layers.count(row.layer)) << "no op of layer " << row.layer << " ran";
    }
  }
}

TEST(PlannedTraining, APlanOfAnotherModelOrAWeightsRowOfNoConvolutionIsRefused) {
  const models::ModelSpec spec = models::load_model("lenet");
  LayerPlan plan;
  plan.fallback = {"reference", std::nullopt, std::nullopt};
  plan.rows = {{"conv9", {"reference", std::nullopt, std::nullopt}, {}}};
  BackendSettings settings;
  settings.name = "reference";
  try {
    make_planned_backend(plan, spec, settings, true);
    FAIL() << "a plan naming a layer the model lacks was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("layer 'conv9' is not a layer of model lenet"), std::string::npos) << e.what();
  }
  // A weights row of a layer the model lacks, and of a layer that is no convolution.
  const std::pair<std::string, std::string> bad[] = {
      {"conv9:weights", "layer 'conv9:weights' is not a layer of model lenet"},
      {"pool1:weights", "row 'pool1:weights' gives a weight gradient of its own to layer 'pool1', a pooling layer"}};
  for (const auto& [row, message] : bad) {
    plan.rows = {{row, {"reference", std::nullopt, std::nullopt}, {}}};
    try {
      make_planned_backend(plan, spec, settings, true);
      FAIL() << "row " << row << " was taken";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
  plan.rows = {{"conv1:weights", {"reference", std::nullopt, std::nullopt}, {}}};
  EXPECT_NO_THROW(make_planned_backend(plan, spec, settings, true));
}

TEST(PlannedTraining, AChoiceThatCannotRunUnderTheRunsThreadingIsRefused) {
  const models::ModelSpec spec = models::load_model("lenet");
  BackendSettings settings;
  settings.name = "openblas";
  settings.options.threading = kernels::cpu::Threading::library;  // Caffe's: the BLAS's own threads
  LayerPlan plan;
  plan.fallback = {"openblas", kernels::cpu::ConvLowering::per_image_gemm, std::nullopt};
  // A choice without a threading of its own runs under the run's.
  plan.rows = {{"conv1", {"eigen", kernels::cpu::ConvLowering::omp_per_image, std::nullopt}, {}}};
  try {
    make_planned_backend(plan, spec, settings, true);
    FAIL() << "a choice that does not run under the run's threading was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("layer conv1's eigen/omp_per_image cannot run with this run's settings: "
                                         "threading 'library'"),
              std::string::npos)
        << e.what();
  }
  // With its own (as a plan file's choices always have), it runs whatever the run's.
  plan.rows[0].choice.threading = kernels::cpu::Threading::openmp_images;
  EXPECT_EQ(choice_problem(plan.rows[0].choice, settings), "");
  EXPECT_NO_THROW(make_planned_backend(plan, spec, settings, true));

  // --plan-threading run: every candidate runs under the run's threading.
  for (const PlanChoice& c : plan_candidates(settings, false)) {
    EXPECT_EQ(choice_problem(c, settings), "") << c.label();
    if (c.lowering && *c.lowering != kernels::cpu::ConvLowering::direct) {
      EXPECT_EQ(c.threading, kernels::cpu::Threading::library) << c.label();
    }
  }
  // measure (the default): each lowering under each threading it takes, whatever the run's.
  std::set<std::string> labels;
  for (const PlanChoice& c : plan_candidates(settings, true)) {
    EXPECT_EQ(choice_problem(c, settings), "") << c.label();
    labels.insert(c.label());
  }
  EXPECT_TRUE(labels.count("openblas/omp_per_image")) << "openmp_images although the run says library";
  EXPECT_TRUE(labels.count("openblas/per_image_gemm"));
  EXPECT_TRUE(labels.count("openblas/per_image_gemm/openmp_frames"));
  EXPECT_TRUE(labels.count("openblas/batched_gemm/openmp_images"));
}

}  // namespace
}  // namespace ablate::bench::run
