// The parts of `ablate compare --with-real` and `--attribute` that hold no process: the curve
// difference, the waterfall's arithmetic, the peers' table and output lines, the flags compare
// passes to every row, the curve check's configuration.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "bench/experiments/attribution_factors.h"
#include "bench/experiments/attribution_waterfall.h"
#include "bench/experiments/compare_plan.h"
#include "bench/experiments/curve_difference.h"
#include "bench/experiments/real_comparison.h"
#include "bench/experiments/real_peers.h"
#include "bench/experiments/real_table.h"
#include "bench/run/run_config.h"
#include "command_runner.h"

namespace ablate::bench::experiments {
namespace {

TEST(CurveDifference, LargestRelativeDifferenceAndItsStep) {
  const std::map<std::int64_t, double> mine = {{1, 2.0}, {2, 1.0}, {3, 0.5}, {4, 9.0}};
  const std::map<std::int64_t, double> theirs = {{1, 2.0}, {2, 1.25}, {3, 0.45}, {4, 1.0}};
  const CurveDifference d = curve_difference(mine, theirs, 3);  // step 4 (8/9 apart) is beyond N
  ASSERT_TRUE(d.measured()) << d.problem;
  EXPECT_EQ(d.steps, 3);
  EXPECT_DOUBLE_EQ(d.largest, 0.25);  // |1.25 - 1| / 1 at step 2; step 3: |0.45 - 0.5| / 0.5 = 0.1
  EXPECT_EQ(d.at_step, 2);
  EXPECT_EQ(curve_text(d), "2.5e-01 at step 2");
}

TEST(CurveDifference, EqualCurvesDifferByZero) {
  const std::map<std::int64_t, double> c = {{1, 2.5}, {2, 0.0}};
  const CurveDifference d = curve_difference(c, c, 2);
  EXPECT_TRUE(d.measured());
  EXPECT_EQ(d.largest, 0.0);
}

TEST(CurveDifference, AMissingStepOrANonFiniteLossIsNamed) {
  const std::map<std::int64_t, double> mine = {{1, 2.0}, {2, 1.0}, {3, 1.0}};
  const CurveDifference missing = curve_difference(mine, {{1, 2.0}}, 3);
  EXPECT_FALSE(missing.measured());
  EXPECT_EQ(missing.problem, "the peer has no loss for step 2 of 3 (1 steps printed)");
  const CurveDifference nan =
      curve_difference(mine, {{1, 2.0}, {2, std::numeric_limits<double>::quiet_NaN()}, {3, 1.0}}, 3);
  EXPECT_TRUE(std::isinf(nan.largest));
  EXPECT_EQ(nan.at_step, 2);
  EXPECT_TRUE(std::isinf(curve_difference({{1, 0.0}}, {{1, 1e-9}}, 1).largest));
}

TEST(Waterfall, ChangesAndWhatIsLeftAddUpToTheGap) {
  Waterfall w;
  w.framework = "tensorflow";
  w.real_s = 10;
  w.ablate_s = 30;
  w.steps_taken = {{"strategy", "static", "layerwise", true, "", 25},
                   {"backend", "eigen", "", false, "already ablate's fastest", 0},
                   {"threads", "1", "2", true, "", 14},
                   {"precision", "f32", "f64", true, "", 16}};  // a switch that costs: a negative share
  // T_real 10, T_0 30, then 25, 14, 16: gap = 16 - 10 = 6 = left (30 - 10) + changes (-5, -11, +2).
  const WaterfallAccount a = account(w);
  EXPECT_DOUBLE_EQ(a.gap_s, 6);
  ASSERT_EQ(a.change_s.size(), 4u);
  EXPECT_DOUBLE_EQ(a.change_s[0], -5);
  EXPECT_DOUBLE_EQ(a.change_s[1], 0);
  EXPECT_DOUBLE_EQ(a.change_s[2], -11);
  EXPECT_DOUBLE_EQ(a.change_s[3], 2);
  EXPECT_DOUBLE_EQ(a.left_s, 20);
  EXPECT_TRUE(a.has_shares);
  EXPECT_DOUBLE_EQ(a.share[3], 2.0 / 6);
  EXPECT_DOUBLE_EQ(a.left_share, 20.0 / 6);
  double shares = a.left_share;
  for (double s : a.share) shares += s;
  EXPECT_DOUBLE_EQ(shares, 1.0);
  const std::string text = waterfall_text(w);
  EXPECT_HAS(text, "+ strategy static -> layerwise");
  EXPECT_HAS(text, "-5.00");
  EXPECT_HAS(text, "-83%");
  EXPECT_HAS(text, "backend eigen: already ablate's fastest");
  EXPECT_HAS(text, "left unexplained");
  EXPECT_HAS(text, "333%");
  EXPECT_HAS(text, "gap: ablate's fastest - real");
  const std::string md = waterfall_markdown(w);
  EXPECT_HAS(md, "| + threads 1 -> 2 | 14.00 | -11.00 | -183% |");
  EXPECT_HAS(md, "| + precision f32 -> f64 | 16.00 | +2.00 | 33% |");
}

TEST(Waterfall, TheanoLikeAccountAddsUpAndTinyGapsHaveNoShares) {
  Waterfall w;  // ablate faster than real already with the framework's own factors
  w.framework = "theano";
  w.real_s = 212;
  w.ablate_s = 147;
  w.steps_taken = {{"precision", "f64", "f32", true, "", 101}};
  WaterfallAccount a = account(w);
  EXPECT_DOUBLE_EQ(a.gap_s, -111);
  EXPECT_DOUBLE_EQ(a.left_share + a.share[0], 1.0);
  EXPECT_NEAR(a.left_share, 65.0 / 111, 1e-12);
  w.steps_taken = {{"precision", "f64", "f32", true, "", 210}};  // within 2% of real: noise
  a = account(w);
  EXPECT_FALSE(a.has_shares);
  EXPECT_HAS(waterfall_text(w), "-");
}

TEST(Waterfall, NoGapHasNoShares) {
  Waterfall w;
  w.framework = "theano";
  w.real_s = w.ablate_s = 5;
  const WaterfallAccount a = account(w);
  EXPECT_EQ(a.gap_s, 0);
  EXPECT_EQ(a.left_share, 0);
  EXPECT_HAS(waterfall_text(w), "left unexplained");
}

TEST(AttributionFactors, AreRunFlagsWithChoicesAndReadTheirValue) {
  const std::vector<AttributionFactor> factors = attribution_factors();
  std::vector<std::string> names;
  for (const auto& f : factors) names.push_back(f.name);
  for (const char* expected :
       {"strategy", "backend", "threads", "conv lowering", "threading", "precision", "passes", "executor", "allocator",
        "plan"})
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  run::Flags flags;
  flags.set("framework", "theano");
  flags.set("dataset", "synthetic");
  const run::RunConfig c = run::resolve_run_config(flags);
  for (const auto& f : factors) {
    EXPECT_FALSE(f.choices.empty()) << f.name;
    if (f.name == "precision") {
      EXPECT_EQ(f.value(c), "f64");
    }
    if (f.name == "strategy") {
      EXPECT_EQ(f.value(c), "static");
    }
    if (f.name == "conv lowering") {  // Theano's CorrMM on the BLAS's own threads (its preset)
      EXPECT_EQ(f.value(c), "per_image_gemm");
    }
    if (f.name == "threading") {
      EXPECT_EQ(f.value(c), "library");
    }
    if (f.name == "plan") {  // a preset keeps its framework's one backend
      EXPECT_EQ(f.value(c), "off");
      EXPECT_EQ(f.choices, std::vector<std::string>{"auto"});
    }
    if (f.name == "backend") {
      EXPECT_EQ(f.value(c), "openblas");
      EXPECT_EQ(std::find(f.choices.begin(), f.choices.end(), "reference"), f.choices.end());
    }
  }
}

TEST(RealPeers, EachFrameworkHasItsRealOneOrAStandIn) {
  EXPECT_EQ(real_peer_for("tensorflow").peer->name, "tensorflow");
  EXPECT_EQ(real_peer_for("tensorflow").peer->paths.size(), 2u);  // eigen and onednn
  EXPECT_EQ(real_peer_for("tensorflow").peer->paths[0].name, "eigen");
  EXPECT_EQ(real_peer_for("theano").note, "");
  for (const char* f : {"caffe", "torch"}) {
    const PeerFor p = real_peer_for(f);
    ASSERT_NE(p.peer, nullptr);
    EXPECT_EQ(p.peer->name, "pytorch");
    EXPECT_HAS(p.note, "PyTorch 2.x stands in for");
  }
  EXPECT_EQ(real_peer_for("mxnet").peer, nullptr);
  try {
    real_peer("mxnet");
    ADD_FAILURE() << "an unknown peer was found";
  } catch (const std::invalid_argument& e) {
    EXPECT_HAS(std::string(e.what()), "peer 'mxnet': expected one of tensorflow, theano, pytorch, pytorch-debian");
  }
}

TEST(RealPeers, AMissingEnvironmentSaysHowToInstallIt) {
  const std::string missing = peer_missing(real_peer("theano"), "/nonexistent-peers");
  EXPECT_EQ(missing, "no /nonexistent-peers/theano/bin/python; install it with scripts/setup-peers.sh theano");
  EXPECT_EQ(peer_interpreter(real_peer("pytorch-debian"), "/x"), "/usr/bin/python3");
}

TEST(RealPeers, LossLinesAndTheResultLineOfARealRunner) {
  const std::string out =
      "peer_loss 1 2.302585092994046\npeer_loss 2 2.25\nnoise\npeer_loss 3 nan\n"
      "peer_result tensorflow=2.21.0 threads=2 batch=50 iterations=3 warmup=0 images_per_s=1160.5 accuracy=0.861 "
      "peak_rss_bytes=1048576 precision=f32 onednn=off cpu_util=1.87\n";
  const std::map<std::int64_t, double> losses = parse_peer_losses(out);
  ASSERT_EQ(losses.size(), 3u);
  EXPECT_DOUBLE_EQ(losses.at(1), 2.302585092994046);
  EXPECT_TRUE(std::isnan(losses.at(3)));
  const PeerMeasure m = parse_peer_output(out, 0, "the TensorFlow runner");
  ASSERT_TRUE(m.completed()) << m.reason;
  EXPECT_EQ(m.framework, "tensorflow");
  EXPECT_EQ(m.version, "2.21.0");
  EXPECT_DOUBLE_EQ(m.cpu_util, 1.87);
  EXPECT_HAS(parse_peer_output("boom", 1, "the TensorFlow runner").reason, "the TensorFlow runner exited with status 1");
}

TEST(RealTable, ANotInstalledPeerIsARowWithTheCommandAndAComparedOneHasEveryColumn) {
  RealComparison missing;
  missing.framework = "theano";
  missing.peer = "theano";
  missing.state = "not installed";
  missing.note = "no /p/theano/bin/python; install it with scripts/setup-peers.sh theano";
  RealComparison done;
  done.framework = "tensorflow";
  done.peer = "tensorflow";
  done.ablate = {"eigen", "f32", 2, 500, 0.85, 200 << 20, 100, {}};
  done.ablate_measured = true;
  done.ablate_cpu_util = 1.5;
  done.curve_steps = 100;
  RealPathMeasure p;
  p.title = "TensorFlow 2.21.0 (eigen)";
  p.full = parse_peer_output(
      "peer_result tensorflow=2.21.0 threads=2 images_per_s=1000 accuracy=0.86 peak_rss_bytes=314572800 cpu_util=1.9\n", 0);
  p.curve = curve_difference({{1, 1.0}, {2, 1.0}}, {{1, 1.0}, {2, 1.002}}, 2);
  done.paths = {p};
  const std::string text = real_text({done, missing});
  EXPECT_HAS(text, "theano      Theano                      not installed: no /p/theano/bin/python; install it with "
                   "scripts/setup-peers.sh theano");
  EXPECT_HAS(text, "TensorFlow 2.21.0 (eigen)");
  EXPECT_HAS(text, "-1.00");    // 0.85 - 0.86 in points
  EXPECT_HAS(text, "2.0e-03 at step 2");
  EXPECT_HAS(text, "0.50");     // 500 / 1000
  EXPECT_HAS(text, "300 MiB");
  EXPECT_HAS(text, "1.90");
  const std::string md = real_markdown({done, missing});
  EXPECT_HAS(md, "| tensorflow | TensorFlow 2.21.0 (eigen) | 0.8600 | -1.00 | 2.0e-03 at step 2 | 1000 | 0.50 | 300 MiB | 1.90 |");
  EXPECT_HAS(md, "| theano | Theano | not installed: no /p/theano/bin/python; install it with scripts/setup-peers.sh theano | "
                 "| | | | | |");
}

TEST(ComparePlan, EveryRunFlagButThoseOfOneRunIsShared) {
  const std::vector<std::string>& shared = shared_run_flags();
  auto has = [&](const char* f) { return std::find(shared.begin(), shared.end(), f) != shared.end(); };
  for (const char* f : {"test-iterations", "test-batch", "seed", "precision", "strategy", "no-random", "backend",
                        "threads", "passes", "timing"})
    EXPECT_TRUE(has(f)) << f;
  for (const char* f : {"framework", "preset", "model", "iterations", "epochs", "scale", "out", "snapshot-initial", "resume",
                        "distributed", "dataset", "data"})
    EXPECT_FALSE(has(f)) << f;
}

TEST(CurveCheck, ItsConfigurationIsShortWithoutRandomPartsAndWritesTheInitialWeights) {
  run::Flags flags;
  flags.set("framework", "tensorflow");
  flags.set("dataset", "synthetic-cifar10");
  const run::RunConfig c = run::resolve_run_config(flags);
  const run::RunConfig k = curve_config(c, 7, "/tmp/w0.ckpt");
  EXPECT_EQ(k.iterations, 7);
  EXPECT_EQ(k.epochs, 0);
  EXPECT_TRUE(k.no_random);
  EXPECT_FALSE(k.shuffle);
  EXPECT_EQ(k.transform, c.test_transform);
  EXPECT_EQ(k.curve_every, 1);
  EXPECT_EQ(k.snapshot_initial, "/tmp/w0.ckpt");
  EXPECT_EQ(k.test_iterations, 1);
  EXPECT_EQ(k.validation_interval, 0);
  EXPECT_EQ(k.validation_count, c.validation_count);  // the same training images
  EXPECT_TRUE(k.out.empty());
}

}  // namespace
}  // namespace ablate::bench::experiments
