// A convolution's weight gradient timed and chosen apart from its layer (the "<layer>:weights"
// rows, kernels/planned_backend.h): plain_weights_rows (bench/run/plan_measure.h) keeps every
// row in NCHW; folded_rows routes a pooling the static graph folds into its convolution with it; a measured plan of a real network names its layers and a weights row for each
// convolution, nothing else.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "bench/run/layer_plan.h"
#include "bench/run/plan_measure.h"
#include "bench/run/training_loop.h"
#include "kernels/planned_backend.h"
#include "models/model_spec.h"
#include "tiny_run.h"

namespace ablate::bench::run {
namespace {

using kernels::cpu::ConvLowering;
using kernels::cpu::Threading;

// Three candidates, the first two plain.
const PlanChoice tiles{"eigen", ConvLowering::tiled_gemm, Threading::openmp_images};
const PlanChoice direct{"onednn", ConvLowering::direct, Threading::library};
PlanChoice blocked_direct() {
  PlanChoice blocked = direct;
  blocked.blocked = true;
  return blocked;
}

TEST(PlanWeightsRows, ABlockedRowTakesItsFastestPlainChoice) {
  LayerPlan plan;
  const PlanChoice blocked = blocked_direct();
  plan.candidates = {tiles, direct, blocked};
  plan.rows = {{"conv1", tiles, {1, 2, 3}},
               {"conv1:weights", blocked, {3, 2, 1}},  // blocked fastest: its fastest plain, direct
               {"conv2", tiles, {1, 2, 3}},
               {"conv2:weights", tiles, {1, 2, 3}},  // its layer's choice: kept, its time in the table
               {"conv3", blocked, {3, 2, 1}},
               {"conv3:weights", blocked, {3, 1, 2}}};  // its fastest plain is its layer's backend, unblocked
  plain_weights_rows(plan, 2);
  EXPECT_EQ(plan.summary(), "conv1=eigen/tiled_gemm,conv1:weights=onednn/direct,conv2=eigen/tiled_gemm,"
                            "conv2:weights=eigen/tiled_gemm,conv3=onednn/direct+blocked,conv3:weights=onednn/direct");
}

// pool1 ran inside conv1's fused op in the plain engine (no plain time) and apart in the
// blocked one: it goes where conv1 goes; pool2, timed plain, keeps its own choice.
TEST(PlanWeightsRows, ALayerFoldedIntoTheOneBeforeItTakesItsChoice) {
  LayerPlan plan;
  plan.candidates = {tiles, direct, blocked_direct()};
  plan.rows = {{"conv1", tiles, {1, 2, 3}},
               {"conv1:weights", direct, {3, 2, 4}},
               {"pool1", direct, {0, 0, 1}},
               {"conv2", direct, {2, 1, 3}},
               {"pool2", tiles, {1, 2, 3}}};
  folded_rows(plan, 2);
  EXPECT_EQ(plan.summary(), "conv1=eigen/tiled_gemm,conv1:weights=onednn/direct,pool1=eigen/tiled_gemm,"
                            "conv2=onednn/direct,pool2=eigen/tiled_gemm");
}

TEST(PlanWeightsRows, AMeasuredPlanNamesLayersAndTheirConvolutionsWeightsRowsOnly) {
  const auto dir = std::filesystem::temp_directory_path() / ("ablate_weights_rows_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  RunConfig c = tiny::tiny_config();
  c.iterations = 1;
  c.plan = "auto";
  c.plan_cache = dir.string();
  train_and_test(c, tiny::tiny_data());
  const LayerPlan plan = read_plan_file((dir / "tiny.plan").string());
  const models::ModelSpec spec = models::load_model(c.model);
  int convolutions = 0, weights_rows = 0;
  for (const models::LayerSpec& l : spec.layers) convolutions += l.type == "convolution";
  for (const LayerPlan::Row& row : plan.rows) {
    const std::string_view weights_of = kernels::PlannedBackend::weights_layer(row.layer);
    const std::string layer = weights_of.empty() ? row.layer : std::string(weights_of);
    const models::LayerSpec* found = nullptr;
    for (const models::LayerSpec& l : spec.layers)
      if (l.name == layer) found = &l;
    ASSERT_NE(found, nullptr) << "row " << row.layer << " names no layer";
    if (!weights_of.empty()) {
      ++weights_rows;
      EXPECT_EQ(found->type, "convolution") << row.layer;
      EXPECT_FALSE(row.choice.blocked) << row.layer;
      EXPECT_EQ(row.seconds.size(), plan.candidates.size()) << row.layer << " was not timed";
    }
  }
  EXPECT_EQ(weights_rows, convolutions) << plan.summary();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ablate::bench::run
