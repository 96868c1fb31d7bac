// `ablate compare --with-peers` end to end on the synthetic set, when Debian's python3-torch
// is installed (skipped otherwise): the ratio line and both accuracies are printed, and a bad
// --peer-threads is refused before any run.
#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>

#include "command_runner.h"

namespace ablate::bench::experiments {
namespace {

using testing::CommandTest;

bool torch_importable() {
  return std::system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") == 0;
}

class PeerCli : public CommandTest {};

TEST_F(PeerCli, ComparePrintsTheRatioAndBothAccuracies) {
  if (!torch_importable()) GTEST_SKIP() << "/usr/bin/python3 cannot import torch (Debian's python3-torch not installed)";
  auto o = ablate("compare --dataset synthetic --frameworks caffe --scale 0.001 --with-peers --peer-threads 1 --quiet "
                  "--report " + dir_.string());
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  std::smatch m;
  const std::regex ratio(R"(lenet: ratio ablate/pytorch images/s [0-9.]+ \((?:95% \[[0-9.]+, [0-9.]+\] over [0-9]+ and [0-9]+ windows; per window ablate [0-9]+-[0-9]+, pytorch [0-9]+-[0-9]+ images/s(?:; within the windows' spread)?|no spread: [a-z]+ reported [0-9]+ speed windows?)\) \(ablate openblas [0-9]+ thr [0-9]+ vs pytorch 1 thr [0-9]+\); accuracy ([0-9.]+) vs ([0-9.]+) \(difference -?[0-9.]+ points\))");
  ASSERT_TRUE(std::regex_search(o.out, m, ratio)) << o.out;
  for (int i : {1, 2}) {
    double accuracy = std::stod(m[i].str());
    EXPECT_GE(accuracy, 0.0);
    EXPECT_LE(accuracy, 1.0);
  }
  std::string report = testing::slurp(dir_ / "report.md");
  EXPECT_HAS(report, "## PyTorch yardstick");
  EXPECT_HAS(report, "lenet: ratio ablate/pytorch images/s");
}

TEST_F(PeerCli, BadPeerThreadsIsRefusedFirst) {
  auto o = ablate("compare --dataset synthetic --frameworks caffe --scale 0.001 --with-peers --peer-threads 1,0");
  EXPECT_NE(o.exit_code, 0);
  EXPECT_HAS(o.err, "--peer-threads 1,0");
  EXPECT_EQ(o.out.find("[1/1]"), std::string::npos) << o.out;
}

}  // namespace
}  // namespace ablate::bench::experiments
