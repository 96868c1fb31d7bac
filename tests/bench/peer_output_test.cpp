// The PyTorch yardstick's output as ablate reads it (peer_runner.h), the lines printed from
// it (peer_table.h) and the recipe's arguments: a result line, the not-comparable path and
// failures, without running Python.
#include <gtest/gtest.h>

#include <algorithm>

#include "bench/experiments/peer_runner.h"
#include "bench/experiments/peer_table.h"

namespace ablate::bench::experiments {
namespace {

const char* kResult =
    "some progress\n"
    "peer_result torch=1.13.1 threads=2 batch=64 iterations=500 warmup=3 images_per_s=3744.5 accuracy=0.879 "
    "peak_rss_bytes=314572800 precision=f32\n";

TEST(PeerOutput, ReadsTheResultLine) {
  PeerMeasure m = parse_peer_output(kResult, 0);
  ASSERT_TRUE(m.completed()) << m.reason;
  EXPECT_EQ(m.threads, 2);
  EXPECT_DOUBLE_EQ(m.images_per_s, 3744.5);
  EXPECT_DOUBLE_EQ(m.accuracy, 0.879);
  EXPECT_EQ(m.peak_rss_bytes, 314572800);
  EXPECT_EQ(m.iterations, 500);
  EXPECT_EQ(m.framework, "torch");
  EXPECT_EQ(m.version, "1.13.1");
  EXPECT_EQ(m.precision, "f32");
}

TEST(PeerOutput, NotComparableNamesTheFeature) {
  PeerMeasure m = parse_peer_output("peer_not_comparable: preprocessing rule 'yuv_lcn:7'\n", 3);
  EXPECT_EQ(m.state, "not comparable");
  EXPECT_EQ(m.reason, "preprocessing rule 'yuv_lcn:7'");
}

TEST(PeerOutput, FailuresQuoteTheOutput) {
  PeerMeasure crashed = parse_peer_output("Traceback ...\nModuleNotFoundError: No module named 'torch'\n", 1);
  EXPECT_EQ(crashed.state, "failed");
  EXPECT_NE(crashed.reason.find("status 1"), std::string::npos) << crashed.reason;
  EXPECT_NE(crashed.reason.find("No module named 'torch'"), std::string::npos) << crashed.reason;
  // A result line with a non-zero status, or a line that lacks a figure, is no result.
  EXPECT_EQ(parse_peer_output(kResult, 1).state, "failed");
  PeerMeasure partial = parse_peer_output("peer_result torch=1.13.1 threads=1 accuracy=0.5 peak_rss_bytes=1\n", 0);
  EXPECT_EQ(partial.state, "failed");
  EXPECT_NE(partial.reason.find("images_per_s"), std::string::npos) << partial.reason;
  EXPECT_EQ(parse_peer_output("peer_not_comparable: x\n", 0).state, "failed");  // the exit status decides
}

PeerComparison comparison() {
  PeerComparison c;
  c.framework = "caffe";
  c.model = "lenet";
  c.ablate_measured = true;
  c.ablate.backend = "openblas";
  c.ablate.threads = 2;
  c.ablate.images_per_s = 6553;
  c.ablate.accuracy = 0.8812;
  c.ablate.peak_rss_bytes = 100 << 20;
  c.ablate.iterations = 500;
  PeerMeasure one = parse_peer_output(kResult, 0), two = one;
  one.threads = 1;
  one.images_per_s = 3000;
  one.accuracy = 0.5;
  c.peers = {one, two};
  return c;
}

TEST(PeerTable, RatioAgainstTheFasterPyTorchThreadCount) {
  PeerComparison c = comparison();
  ASSERT_NE(fastest_peer(c), nullptr);
  EXPECT_EQ(fastest_peer(c)->threads, 2);
  EXPECT_EQ(peer_ratio_line(c),
            "lenet: ratio ablate/pytorch images/s 1.75 (no spread: ablate reported 0 speed windows) (ablate openblas 2 "
            "thr 6553 vs pytorch 2 thr 3744); accuracy 0.8812 vs 0.8790 (difference 0.22 points)");
  std::string text = peer_text(c);
  EXPECT_NE(text.find("pytorch 1.13.1 1 thr: 3000 images/s, accuracy 0.5000"), std::string::npos) << text;
  std::string md = peer_markdown({c}, "ENV");
  EXPECT_NE(md.find("| lenet | caffe | pytorch 1.13.1 | 2 | 3744 | 0.8790 | 300 MiB |"), std::string::npos) << md;
  EXPECT_NE(md.find("- lenet: ratio ablate/pytorch images/s 1.75"), std::string::npos) << md;
  // With speed windows on both sides the spread stands beside the ratio, the faster peer's.
  c.ablate.window_images_per_s = {6000, 6500, 7000, 6700};
  c.peers[0].window_images_per_s = {1000, 5000};
  c.peers[1].window_images_per_s = {3700, 3800, 3750};
  const std::string line = peer_ratio_line(c);
  EXPECT_NE(line.find("images/s 1.75 (95% ["), std::string::npos) << line;
  EXPECT_NE(line.find("] over 4 and 3 windows; per window ablate 6000-7000, pytorch 3700-3800 images/s) (ablate"),
            std::string::npos)
      << line;
}

TEST(PeerTable, NotComparablePrintsNoNumber) {
  PeerComparison c = comparison();
  c.model = "torch-cifar10";
  c.peers = {parse_peer_output("peer_not_comparable: per-sample training\n", 3)};
  EXPECT_EQ(fastest_peer(c), nullptr);
  EXPECT_EQ(peer_ratio_line(c), "torch-cifar10: peer: not comparable (per-sample training)");
  EXPECT_EQ(peer_ratio_line(c).find("ratio"), std::string::npos);
  c.peers = {parse_peer_output("boom", 1)};
  EXPECT_EQ(peer_ratio_line(c).rfind("torch-cifar10: peer: failed (the PyTorch script exited with status 1", 0), 0u)
      << peer_ratio_line(c);
}

TEST(PeerArguments, CarryTheResolvedRecipe) {
  run::RunConfig c;
  c.model = "lenet";
  c.batch = 64;
  c.seed = 7;
  c.optimizer.type = "caffe_sgd";
  c.optimizer.lr.policy = "inv";
  c.optimizer.lr.base_lr = 0.01;
  c.optimizer.lr.gamma = 0.0001;
  c.optimizer.lr.power = 0.75;
  c.optimizer.momentum = 0.9;
  c.optimizer.weight_decay = 0.0005;
  c.transform = "scale:0.00390625";
  c.switches.per_sample = true;
  auto a = peer_arguments(c, "/m.model", "/d", 123, 2);
  auto value = [&](const std::string& flag) {
    auto it = std::find(a.begin(), a.end(), flag);
    return it == a.end() || it + 1 == a.end() ? std::string("<none>") : *(it + 1);
  };
  EXPECT_EQ(value("--iterations"), "123");
  EXPECT_EQ(value("--threads"), "2");
  EXPECT_EQ(value("--seed"), "7");
  EXPECT_EQ(value("--lr-policy"), "inv");
  EXPECT_EQ(value("--power"), "0.75");
  EXPECT_EQ(value("--weight-decay"), "0.0005");
  EXPECT_EQ(value("--transform"), "scale:0.00390625");
  EXPECT_EQ(value("--train-images"), "/d/train-images.idx");
  EXPECT_NE(std::find(a.begin(), a.end(), "--per-sample"), a.end());
  EXPECT_EQ(std::find(a.begin(), a.end(), "--shuffle"), a.end());
}

}  // namespace
}  // namespace ablate::bench::experiments
