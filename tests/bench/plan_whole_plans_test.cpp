// The whole plans a per-layer plan is checked against (bench/run/plan_whole_plans.h), on a
// stand-in timer of whole steps: the plan of one candidate, the plan on OpenMP's threads only.
#include <gtest/gtest.h>

#include <utility>

#include "bench/run/plan_whole_plans.h"

namespace ablate::bench::run {
namespace {

using kernels::cpu::ConvLowering;
using kernels::cpu::Threading;

const std::vector<PlanChoice> kCandidates = {{"reference", std::nullopt, std::nullopt},
                                             {"eigen", ConvLowering::eigen_spatial, Threading::intra_inter},
                                             {"openblas", ConvLowering::per_image_gemm, Threading::library}};

// With no blocked candidate, the per-layer plan is timed whole beside the one candidate whose
// layer times add up least, and loses to it when slower whole (a mixed plan's cost that no
// layer's time shows); it is kept when faster.
TEST(WholePlans, APerLayerPlanSlowerWholeThanOneCandidateGivesWayToIt) {
  LayerPlan chosen;
  chosen.candidates = {kCandidates[1], kCandidates[2]};
  chosen.rows = {{"conv1", kCandidates[1], {2.0, 3.0}}, {"pool1", kCandidates[2], {1.5, 1.0}}, {"ip1", kCandidates[1], {4.0, 5.0}}};
  const models::ModelSpec spec;
  std::vector<std::string> timed;
  auto timer_favouring = [&](bool per_layer_faster) {
    return WholePlanTimer([&, per_layer_faster](const std::vector<LayerPlan>& plans) {
      std::vector<double> out;
      for (const LayerPlan& p : plans) {
        timed.push_back(p.summary());
        out.push_back(p.summary() == chosen.summary() ? (per_layer_faster ? 7.0 : 8.0) : 7.5);
      }
      return out;
    });
  };
  const LayerPlan single = settle_whole_plans(chosen, 2, spec, timer_favouring(false));
  EXPECT_EQ(timed, (std::vector<std::string>{chosen.summary(), "conv1=eigen/eigen_spatial,pool1=eigen/eigen_spatial,ip1=eigen/eigen_spatial"}));
  EXPECT_EQ(single.summary(), "conv1=eigen/eigen_spatial,pool1=eigen/eigen_spatial,ip1=eigen/eigen_spatial");
  EXPECT_NE(single.whole_plans_note.find("took single eigen/eigen_spatial"), std::string::npos) << single.whole_plans_note;
  const LayerPlan kept = settle_whole_plans(chosen, 2, spec, timer_favouring(true));
  EXPECT_EQ(kept.summary(), chosen.summary());
  EXPECT_NE(kept.whole_plans_note.find("took per layer"), std::string::npos) << kept.whole_plans_note;
}

// The per-layer plan with every layer on OpenMP's threads is timed too: a layer on OpenBLAS's
// pthreads or Eigen's pool takes its fastest choice that runs on OpenMP.
TEST(WholePlans, ThePerLayerPlanOnOpenMPThreadsOnlyIsTimedWhole) {
  const PlanChoice onednn{"onednn", ConvLowering::direct, std::nullopt};
  const PlanChoice openblas_omp{"openblas", ConvLowering::per_image_gemm, Threading::openmp_images};
  LayerPlan chosen;
  chosen.candidates = {kCandidates[1], kCandidates[2], onednn, openblas_omp};  // eigen_spatial, openblas library
  chosen.rows = {{"conv1", kCandidates[1], {2.0, 3.0, 2.5, 2.8}},
                 {"pool1", kCandidates[2], {1.5, 1.0, 1.4, 1.2}},
                 {"ip1", onednn, {4.0, 5.0, 3.0, 3.5}}};
  const std::string openmp = "conv1=onednn/direct,pool1=openblas/per_image_gemm/openmp_images,ip1=onednn/direct";
  std::vector<std::string> timed;
  const WholePlanTimer timer = [&](const std::vector<LayerPlan>& plans) {
    std::vector<double> out;
    for (const LayerPlan& p : plans) {
      timed.push_back(p.summary());
      out.push_back(p.summary() == openmp ? 0.006 : 0.007);  // seconds
    }
    return out;
  };
  const LayerPlan taken = settle_whole_plans(chosen, 4, models::ModelSpec{}, timer);
  ASSERT_EQ(timed.size(), 3u) << "per layer, OpenMP only, single";
  EXPECT_EQ(timed[1], openmp);
  EXPECT_EQ(taken.summary(), openmp);
  EXPECT_NE(taken.whole_plans_note.find("OpenMP only 6.000 ms"), std::string::npos) << taken.whole_plans_note;
  EXPECT_NE(taken.whole_plans_note.find("took OpenMP only"), std::string::npos) << taken.whole_plans_note;
}

// The local search after the whole layouts: in a chain network a flip whose layer is no faster
// alone by its medians and which leaves no conversion fewer is not timed (here conv1 plain:
// slower, and between the NCHW input and a blocked pool1 it moves the conversion, no fewer);
// pool1 plain, faster alone, is. Where the network branches every flip is timed.
TEST(WholePlans, AFlipNoFasterAloneAndWithNoConversionFewerIsNotTimed) {
  const PlanChoice plain{"onednn", ConvLowering::direct, std::nullopt};
  PlanChoice blocked = plain;
  blocked.blocked = true;
  LayerPlan chosen;
  chosen.candidates = {plain, blocked};
  chosen.rows = {{"conv1", blocked, {3.0, 2.0}}, {"pool1", plain, {1.0, 1.5}}, {"ip1", plain, {4.0, 4.0}}};
  models::ModelSpec spec;
  for (const auto& [name, type] : {std::pair{"conv1", "convolution"}, {"relu1", "relu"}, {"pool1", "pooling"}, {"ip1", "inner_product"}}) {
    models::LayerSpec layer;
    layer.name = name;
    layer.type = type;
    spec.layers.push_back(layer);
  }
  const std::string all_blocked = "conv1=onednn/direct+blocked,pool1=onednn/direct+blocked,ip1=onednn/direct";
  std::vector<std::vector<std::string>> calls;
  const WholePlanTimer timer = [&](const std::vector<LayerPlan>& plans) {
    calls.emplace_back();
    std::vector<double> out;
    for (const LayerPlan& p : plans) {
      calls.back().push_back(p.summary());
      out.push_back(p.summary() == all_blocked ? 6.0 : 7.0);
    }
    return out;
  };
  const LayerPlan taken = settle_whole_plans(chosen, 1, spec, timer);
  EXPECT_EQ(taken.summary(), all_blocked);
  ASSERT_EQ(calls.size(), 2u) << "the whole layouts, then the flips";
  EXPECT_EQ(calls[1], (std::vector<std::string>{all_blocked, "conv1=onednn/direct+blocked,pool1=onednn/direct,ip1=onednn/direct"}));
  EXPECT_NE(taken.whole_plans_note.find("not timed, no faster alone and no conversion fewer: conv1 plain"), std::string::npos)
      << taken.whole_plans_note;

  calls.clear();
  spec.layers[2].inputs = {"conv1"};  // pool1 fed past relu1: a branch
  settle_whole_plans(chosen, 1, spec, timer);
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[1].size(), 3u) << "it, conv1 plain, pool1 plain";
}

}  // namespace
}  // namespace ablate::bench::run
