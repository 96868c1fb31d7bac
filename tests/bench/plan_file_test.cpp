// The per-layer plan's key and file (bench/run/plan_file.cpp): a plan written and read back,
// choices naming their threading, a cached plan of another key refused with the reason, and a
// clear error for every malformed file.
#include <gtest/gtest.h>

#include <fstream>

#include "bench/run/layer_plan.h"
#include "plan_test_support.h"

namespace ablate::bench::run {
namespace {

using kernels::cpu::ConvLowering;
using kernels::cpu::Threading;

PlanKey key() {
  return {"AMD EPYC 7B13", 2, "lenet", "64x1x28x28", "f32", "layerwise", "", "measured", "0.1.0 abc1234"};
}

LayerPlan sample_plan() {
  LayerPlan p;
  p.key = key();
  p.fallback = {"openblas", ConvLowering::omp_per_image, Threading::openmp_images};
  p.candidates = kCandidates;
  p.rounds = 5;
  p.rows = {{"conv1", kCandidates[1], {9, 2, 3}}, {"ip1", kCandidates[2], {9, 4, 3.5}}};
  return p;
}

TEST(PlanFile, FileRoundTrip) {
  const std::string path = scratch("round.plan").string();
  write_plan_file(sample_plan(), path);
  const LayerPlan back = read_plan_file(path);
  EXPECT_EQ(back.key, key());
  EXPECT_EQ(back.fallback, sample_plan().fallback);
  EXPECT_EQ(back.candidates, kCandidates);
  ASSERT_EQ(back.rows.size(), 2u);
  EXPECT_EQ(back.rows[1].choice, kCandidates[2]);
  EXPECT_DOUBLE_EQ(back.rows[1].seconds[2], 3.5);
  EXPECT_EQ(back.rounds, 5);
}

TEST(PlanFile, AChoiceNamesItsThreadingWhenNotTheLoweringsDefault) {
  const PlanChoice frames = parse_plan_choice("eigen/per_image_gemm/openmp_frames", "test");
  EXPECT_EQ(frames, (PlanChoice{"eigen", ConvLowering::per_image_gemm, Threading::openmp_frames}));
  EXPECT_EQ(frames.label(), "eigen/per_image_gemm/openmp_frames");
  const PlanChoice library = parse_plan_choice("openblas/batched_gemm", "test");
  EXPECT_EQ(library.threading, Threading::library) << "the lowering's default threading";
  EXPECT_EQ(library.label(), "openblas/batched_gemm");
  EXPECT_EQ(parse_plan_choice("openblas/batched_gemm/library", "test"), library);
  EXPECT_EQ(parse_plan_choice("onednn", "test").label(), "onednn/direct");
  EXPECT_EQ(parse_plan_choice("reference", "test"), (PlanChoice{"reference", std::nullopt, std::nullopt}));
  const PlanChoice blocked = parse_plan_choice("onednn/direct+blocked", "test");
  EXPECT_TRUE(blocked.blocked);
  EXPECT_EQ(blocked.label(), "onednn/direct+blocked");
  EXPECT_NE(blocked, parse_plan_choice("onednn/direct", "test"));
  EXPECT_NE(error_of([] { parse_plan_choice("eigen/omp_per_image+blocked", "where"); })
                .find("where: 'eigen/omp_per_image+blocked': only a direct lowering (onednn/direct) keeps a blocked layout"),
            std::string::npos);
  LayerPlan p = sample_plan();
  p.rows[0].choice = frames;
  const std::string path = scratch("threading.plan").string();
  write_plan_file(p, path);
  EXPECT_EQ(read_plan_file(path).rows[0].choice, frames);
}

TEST(PlanFile, CachedPlanOfAnotherKeyIsNotUsedAndSaysWhy) {
  const std::string path = scratch("cache.plan").string();
  write_plan_file(sample_plan(), path);
  std::string why;
  EXPECT_TRUE(load_cached_plan(path, key(), why).has_value()) << why;
  EXPECT_EQ(why, "");

  PlanKey threads = key();
  threads.threads = 1;
  EXPECT_FALSE(load_cached_plan(path, threads, why).has_value());
  EXPECT_NE(why.find("threads '2' in the plan, '1' in this run"), std::string::npos) << why;

  PlanKey threading = key();
  threading.threading = "run library";
  EXPECT_FALSE(load_cached_plan(path, threading, why).has_value());
  EXPECT_NE(why.find("threading 'measured' in the plan, 'run library' in this run"), std::string::npos) << why;

  PlanKey shapes = key();
  shapes.shapes = "100x3x32x32";
  EXPECT_FALSE(load_cached_plan(path, shapes, why).has_value());
  EXPECT_NE(why.find("shapes '64x1x28x28' in the plan, '100x3x32x32' in this run"), std::string::npos) << why;

  PlanKey cpu = key();
  cpu.cpu_model = "Intel(R) Xeon(R) Platinum 8375C";
  cpu.dtype = "f64";
  EXPECT_FALSE(load_cached_plan(path, cpu, why).has_value());
  EXPECT_NE(why.find("cpu_model 'AMD EPYC 7B13' in the plan"), std::string::npos) << why;
  EXPECT_NE(why.find("dtype 'f32' in the plan, 'f64' in this run"), std::string::npos) << why;

  EXPECT_FALSE(load_cached_plan(scratch("absent.plan").string(), key(), why).has_value());
  EXPECT_NE(why.find("no cached plan"), std::string::npos) << why;
}

// A plan file with `body` after a valid header and key; returns the error of reading it.
std::string error_reading(const std::string& body, bool header = true) {
  const std::string path = scratch("bad.plan").string();
  std::ofstream(path) << (header ? "ablate-plan 1\nthreads 2\n" : "") << body;
  return error_of([&] { read_plan_file(path); });
}

TEST(PlanFile, BadPlanFilesGiveClearErrors) {
  const std::string path = scratch("bad.plan").string();
  EXPECT_NE(error_reading("", false).find(path + ": empty plan file"), std::string::npos);
  EXPECT_NE(error_reading("layer conv1 eigen\n", false).find(":1: expected the header 'ablate-plan 1'"),
            std::string::npos);
  EXPECT_NE(error_reading("fallback eigen\nlayer conv1 fastest\n").find(":4: backend 'fastest' in 'fastest' is not one of this build"),
            std::string::npos)
      << error_reading("fallback eigen\nlayer conv1 fastest\n");
  EXPECT_NE(error_reading("fallback eigen\nlayer conv1 openblas/direct\n").find("'direct' in 'openblas/direct' is not a convolution lowering of openblas"),
            std::string::npos);
  EXPECT_NE(error_reading("fallback eigen\nlayer conv1 eigen/omp_per_image/library\n")
                .find("threading 'library' in 'eigen/omp_per_image/library' is not one that omp_per_image runs under "
                      "(it takes openmp_images)"),
            std::string::npos);
  EXPECT_NE(error_reading("fallback eigen\nlayer conv1 eigen\nlayer conv1 openblas\n").find(":5: layer 'conv1' planned twice"),
            std::string::npos);
  EXPECT_NE(error_reading("fallback eigen\nlayer conv1\n").find("expected 'layer NAME BACKEND[/LOWERING[/THREADING]] [seconds...]'"),
            std::string::npos);
  EXPECT_NE(error_reading("fallback eigen\ncandidates eigen openblas\nlayer conv1 eigen 0.1\n").find("has 1 times but the plan names 2 candidates"),
            std::string::npos);
  EXPECT_NE(error_reading("fallback eigen\nlayer conv1 eigen fast\n").find("time 'fast' is not a number of seconds"),
            std::string::npos);
  EXPECT_NE(error_reading("speed max\n").find(":3: unknown entry 'speed'"), std::string::npos);
  EXPECT_NE(error_reading("threads two\n").find("'threads' given twice"), std::string::npos);
  EXPECT_NE(error_reading("layer conv1 eigen\n").find("no 'fallback' entry"), std::string::npos);
  EXPECT_NE(error_reading("fallback eigen\n").find("no 'layer' entry"), std::string::npos);
  EXPECT_NE(error_of([] { read_plan_file("/nonexistent/ablate.plan"); }).find("plan file '/nonexistent/ablate.plan': cannot be read"),
            std::string::npos);
}

}  // namespace
}  // namespace ablate::bench::run
