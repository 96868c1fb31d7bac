// `--plan auto` and `--plan FILE` in a whole run (bench/run/plan_measure.h): the first run
// measures and caches the plan and records it; the second takes the cache; a run with another
// thread count does not, and says why; a plan file is replayed as written.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "bench/run/layer_plan.h"
#include "bench/run/training_loop.h"
#include "kernels/registry.h"
#include "tiny_run.h"

namespace ablate::bench::run {
namespace {

std::filesystem::path scratch_dir() {
  const auto dir = std::filesystem::temp_directory_path() / ("ablate-plan-run-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(PlanRun, AutoMeasuresCachesAndRecordsThePlan) {
  const auto dir = scratch_dir();
  RunConfig c = tiny::tiny_config();
  c.iterations = 3;
  c.plan = "auto";
  c.plan_cache = dir.string();
  const RunResult first = train_and_test(c, tiny::tiny_data());
  EXPECT_EQ(first.resolved.at("backend"), "planned");
  const std::string plan = first.resolved.at("plan");
  EXPECT_NE(plan.find("c1="), std::string::npos) << plan;
  EXPECT_NE(plan.find("fc="), std::string::npos) << plan;
  EXPECT_NE(first.resolved.at("plan_source").find("measured"), std::string::npos);
  EXPECT_GT(std::stod(first.resolved.at("plan_startup_s")), 0.0);
  EXPECT_EQ(first.resolved.at("plan_measure_detail").rfind("start-up ", 0), 0u) << first.resolved.at("plan_measure_detail");
  EXPECT_NE(first.resolved.at("plan_measure_detail").find("timed steps"), std::string::npos);
  EXPECT_NE(first.resolved.at("plan_measure_detail").find("; screen "), std::string::npos)
      << "batch 20: the screen steps every candidate on one image first";
  const std::string cache = (dir / "tiny.plan").string();
  ASSERT_TRUE(std::filesystem::exists(cache));

  const RunResult second = train_and_test(c, tiny::tiny_data());
  EXPECT_EQ(second.resolved.at("plan_source"), "cache " + cache);
  EXPECT_EQ(second.resolved.at("plan"), plan) << "the cached plan is the measured one";

  c.backend.options.threads = 2;
  const RunResult other = train_and_test(c, tiny::tiny_data());
  EXPECT_NE(other.resolved.at("plan_source").find("measured"), std::string::npos);
  EXPECT_NE(other.resolved.at("plan_note").find("threads '1' in the plan, '2' in this run"), std::string::npos)
      << other.resolved.at("plan_note");
  // --plan-threading run: another key (the cache is not used, and says why); every choice under
  // the run's threading.
  c.backend.options.threads = 1;
  c.plan_threading = "run";
  c.backend.options.threading = kernels::cpu::Threading::library;
  c.backend.options.conv_lowering = kernels::cpu::ConvLowering::per_image_gemm;
  const RunResult fixed = train_and_test(c, tiny::tiny_data());
  EXPECT_NE(fixed.resolved.at("plan_note").find("threading 'measured' in the plan, 'run library' in this run"),
            std::string::npos)
      << fixed.resolved.at("plan_note");
  const LayerPlan written = read_plan_file(cache);
  EXPECT_EQ(written.key.threading, "run library");
  for (const PlanChoice& candidate : written.candidates)
    if (candidate.lowering && *candidate.lowering != kernels::cpu::ConvLowering::direct) {
      EXPECT_EQ(candidate.threading, kernels::cpu::Threading::library) << candidate.label();
    }
  std::filesystem::remove_all(dir);
}

// Two 16-channel convolutions with pooling between: blocked on onednn.
std::string wide_model(const std::filesystem::path& dir) {
  const std::string model = (dir / "wide.model").string();
  std::ofstream(model) << "model wide\ninput 1 28 28\nclasses 10\n"
                          "layer c1 convolution outputs=16 kernel=5\n"
                          "layer p1 pooling mode=max kernel=2 stride=2\n"
                          "layer r1 relu\n"
                          "layer c2 convolution outputs=16 kernel=3 pad=1\n"
                          "layer p2 pooling mode=max kernel=4 stride=4\n"
                          "layer fc inner_product outputs=10\n"
                          "layer loss softmax_loss\n";
  return model;
}

bool onednn_blocks() {
  const auto names = kernels::backend_names();
  return std::find(names.begin(), names.end(), "onednn") != names.end() &&
         kernels::make_backend("onednn", 1)->channel_block(kernels::DType::f32) > 0;
}

// The layer-wise strategy with --blocked-layout on: the blocked candidate is timed, whole plans
// settle the layouts, then plans with one layer's layout flipped, and the key says so (a plan
// measured without it is not used).
TEST(PlanRun, ALayerwiseRunWithTheBlockedLayoutTimesItAndWholePlans) {
  if (!onednn_blocks()) GTEST_SKIP() << "no onednn with a blocked layout here";
  const auto dir = scratch_dir();
  RunConfig c = tiny::tiny_config();
  c.model = wide_model(dir);
  c.backend.name = "onednn";
  c.iterations = 2;
  c.plan = "auto";
  c.plan_cache = dir.string();
  const RunResult plain = train_and_test(c, tiny::tiny_data());
  if (plain.resolved.count("plan_whole_plans")) {  // the per-layer plan beside one candidate's
    EXPECT_EQ(plain.resolved.at("plan_whole_plans").rfind("whole steps timed, per layer", 0), 0u)
        << "no layout to choose with the switch off: " << plain.resolved.at("plan_whole_plans");
  }
  c.switches.blocked_layout = true;
  const RunResult r = train_and_test(c, tiny::tiny_data());
  EXPECT_NE(r.resolved.at("plan_note").find("passes '' in the plan, 'blocked_layout' in this run"), std::string::npos)
      << r.resolved.at("plan_note");
  const LayerPlan written = read_plan_file((dir / "wide.plan").string());
  EXPECT_EQ(written.key.passes, "blocked_layout");
  EXPECT_TRUE(std::any_of(written.candidates.begin(), written.candidates.end(), [](const PlanChoice& p) { return p.blocked; }));
  const std::string layouts = r.resolved.at("plan_whole_plans");
  EXPECT_NE(layouts.find("took"), std::string::npos) << layouts;
  EXPECT_NE(layouts.find(", single "), std::string::npos) << "a single candidate's whole plan is timed too: " << layouts;
  // then the local search: each of c1, p1, c2, p2 in the other layout, timed beside the plan
  // taken, or named as not timed (no faster alone and no conversion fewer)
  const std::size_t flips = layouts.find("one layer flipped at a time: ");
  ASSERT_NE(flips, std::string::npos) << layouts;
  for (const char* layer : {"c1 ", "p1 ", "c2 ", "p2 "}) EXPECT_NE(layouts.find(layer, flips), std::string::npos) << layer << layouts;
  EXPECT_EQ(layouts.find("r1 ", flips), std::string::npos) << "an elementwise layer has no layout of its own";
  EXPECT_EQ(r.status, "completed") << r.error;
  std::filesystem::remove_all(dir);
}

// The static strategy with its blocked_layout pass: the blocked choice (onednn/direct+blocked)
// is timed beside the plain ones, whole plans settle the layouts (recorded), and a replayed
// plan with blocked layers trains.
TEST(PlanRun, AStaticRunTimesTheBlockedLayoutAndWholePlans) {
  if (!onednn_blocks()) GTEST_SKIP() << "no onednn with a blocked layout here";
  const auto dir = scratch_dir();
  RunConfig c = tiny::tiny_config();
  c.model = wide_model(dir);
  c.strategy = "static";
  c.backend.name = "onednn";
  c.iterations = 2;
  c.plan = "auto";
  c.plan_cache = dir.string();
  const RunResult r = train_and_test(c, tiny::tiny_data());
  const LayerPlan written = read_plan_file((dir / "wide.plan").string());
  bool timed_blocked = false;
  for (const PlanChoice& candidate : written.candidates) timed_blocked = timed_blocked || candidate.blocked;
  EXPECT_TRUE(timed_blocked) << "no blocked candidate among the timed ones";
  const std::string layouts = r.resolved.at("plan_whole_plans");
  EXPECT_NE(layouts.find("per layer"), std::string::npos) << layouts;
  EXPECT_NE(layouts.find("took"), std::string::npos) << layouts;

  c.switches.disabled_passes = {"blocked_layout"};  // the pass off: nothing blocked is timed
  const RunResult off = train_and_test(c, tiny::tiny_data());
  EXPECT_NE(off.resolved.at("plan_note").find("passes 'all' in the plan, 'all,-blocked_layout' in this run"),
            std::string::npos)
      << off.resolved.at("plan_note");
  for (const PlanChoice& candidate : read_plan_file((dir / "wide.plan").string()).candidates)
    EXPECT_FALSE(candidate.blocked) << candidate.label();
  if (off.resolved.count("plan_whole_plans")) {
    EXPECT_EQ(off.resolved.at("plan_whole_plans").find("layouts"), std::string::npos) << off.resolved.at("plan_whole_plans");
  }

  c.switches.disabled_passes.clear();
  const std::string path = (dir / "blocked.plan").string();
  std::ofstream(path) << "ablate-plan 1\nfallback onednn\nlayer c1 onednn/direct+blocked\nlayer p1 onednn/direct+blocked\n"
                         "layer c2 onednn/direct+blocked\nlayer p2 eigen\n";
  c.plan = path;
  c.iterations = 4;
  const RunResult replayed = train_and_test(c, tiny::tiny_data());
  EXPECT_EQ(replayed.resolved.at("backend.plan.c1"), "onednn/direct+blocked");
  EXPECT_EQ(replayed.status, "completed") << replayed.error;
  ASSERT_FALSE(replayed.curve.empty());
  EXPECT_TRUE(std::isfinite(replayed.curve.back().loss)) << "the blocked plan did not train";
  std::filesystem::remove_all(dir);
}

TEST(PlanRun, AFileIsReplayedAsWritten) {
  const auto dir = scratch_dir();
  const std::string path = (dir / "hand.plan").string();
  std::ofstream(path) << "ablate-plan 1\nfallback eigen\nlayer c1 openblas/per_image_gemm\nlayer fc reference\n";
  RunConfig c = tiny::tiny_config();
  c.iterations = 2;
  c.plan = path;
  const RunResult r = train_and_test(c, tiny::tiny_data());
  EXPECT_EQ(r.resolved.at("plan"), "c1=openblas/per_image_gemm,fc=reference");
  EXPECT_EQ(r.resolved.at("plan_source"), "file " + path);
  EXPECT_EQ(r.resolved.at("backend.plan.c1"), "openblas/per_image_gemm");
  EXPECT_EQ(r.resolved.at("backend.plan.fallback"), "eigen/omp_per_image");
  // Written by hand, without a key: every difference is noted, nothing refused.
  EXPECT_NE(r.resolved.at("plan_note").find("replayed although"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ablate::bench::run
