// The PyTorch yardstick's interpreter: --peer-python chooses it for `bench
// --with-pytorch` and `compare --with-peers` (PyTorch 2.x's environment beside Debian's 1.13),
// a path that is no interpreter is refused before any run, and the version, BLAS and oneDNN
// that the script's line names are printed and reported. A stand-in interpreter (a shell
// script) answers as pytorch_train.py would.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <string>

#include "bench/experiments/peer_runner.h"
#include "command_runner.h"

namespace ablate::bench::experiments {
namespace {

using testing::CommandTest;

class PeerPython : public CommandTest {
 protected:
  // An executable stand-in that writes "<itself> <script>" to seen.txt, all its arguments to
  // args.txt, and prints `line`.
  std::string stand_in(const std::string& line) {
    const auto path = dir_ / "python-2.x";
    std::ofstream(path) << "#!/bin/sh\necho \"$0 $1\" > " << (dir_ / "seen.txt").string() << "\necho \"$@\" > "
                        << (dir_ / "args.txt").string() << "\necho '" << line << "'\n";
    ::chmod(path.c_str(), 0755);
    return path.string();
  }
  std::string seen() { return testing::slurp(dir_ / "seen.txt"); }
  // Every argument the stand-in was given (seen.txt holds the script's path and the first).
  std::string all_seen() { return testing::slurp(dir_ / "args.txt"); }
};

TEST_F(PeerPython, BenchRunsTheYardstickByTheChosenInterpreter) {
  const std::string python = stand_in("torch=2.99.0+stand-in threads=1 batch=8 images_per_s=10.0 blas=mkl onednn=3.13.3");
  const auto o = ablate("bench --backends reference --threads 1 --repeats 1 --iterations 1 --warmup 0 --batch 8 "
                        "--with-pytorch --peer-python " + python);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_HAS(seen(), python + " ");
  EXPECT_HAS(seen(), "bench/peers/pytorch_train.py") << "the source tree's script, by the chosen interpreter";
  EXPECT_HAS(o.out, "fastest pytorch (torch 2.99.0+stand-in, blas mkl, oneDNN 3.13.3, " + python + ", ");
  EXPECT_HAS(o.out, "ratio ablate/pytorch:");
}

// --peer-device cuda: the script is asked for the GPU (--device cuda), its GPU is printed beside
// its libraries, and the row has no share of the CPU's FMA peak; another device is refused.
TEST_F(PeerPython, BenchAsksTheYardstickForTheChosenDevice) {
  const std::string python = stand_in("torch=2.99.0 threads=1 batch=8 images_per_s=10.0 blas=mkl onednn=3.13.3 "
                                      "device=cuda gpu=NVIDIA_H200");
  const std::string common = "bench --backends reference --threads 1 --repeats 1 --iterations 1 --warmup 0 --batch 8 "
                             "--with-pytorch --peer-python " + python;
  const auto o = ablate(common + " --peer-device cuda");
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_HAS(all_seen(), "--device cuda");
  EXPECT_HAS(o.out, "fastest pytorch (torch 2.99.0, blas mkl, oneDNN 3.13.3, GPU NVIDIA_H200, ");
  const std::string shares = o.out.substr(o.out.find("share of the FMA probe's peak"));
  EXPECT_EQ(shares.find("\npytorch"), std::string::npos) << "a GPU row has no share of the CPU's peak:\n" << shares;
  EXPECT_HAS(shares, "\nreference ");
  const auto cpu = ablate(common);
  ASSERT_EQ(cpu.exit_code, 0) << cpu.out << cpu.err;
  EXPECT_HAS(all_seen(), "--device cpu");
  const auto bad = ablate(common + " --peer-device tpu");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_HAS(bad.err, "--peer-device tpu: expected cpu or cuda");
  const auto alone = ablate("bench --backends reference --threads 1 --repeats 1 --peer-device cuda");
  EXPECT_NE(alone.exit_code, 0);
  EXPECT_HAS(alone.err, "--peer-device belongs to --with-pytorch, which is not given");
}

TEST_F(PeerPython, ComparePrintsAndReportsTheInterpretersLibraries) {
  const std::string python = stand_in(
      "peer_result torch=2.99.0 threads=1 batch=64 iterations=2 warmup=0 images_per_s=100.0 accuracy=0.5 "
      "peak_rss_bytes=1048576 precision=f32 cpu_util=1.00 init=pytorch blas=mkl onednn=3.13.3");
  const auto o = ablate("compare --dataset synthetic --frameworks caffe --scale 0.001 --with-peers --peer-threads 1 "
                        "--quiet --peer-python " + python + " --report " + dir_.string());
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_HAS(o.out, "run by " + python);
  EXPECT_HAS(o.out, "pytorch 2.99.0 (blas mkl, oneDNN 3.13.3) 1 thr: 100 images/s");
  EXPECT_HAS(o.out, "lenet: ratio ablate/pytorch images/s");
  const std::string report = testing::slurp(dir_ / "report.md");
  EXPECT_HAS(report, "run by `" + python + "`");
  EXPECT_HAS(report, "| pytorch 2.99.0 (blas mkl, oneDNN 3.13.3) | 1 | 100 |");
}

TEST_F(PeerPython, APathThatIsNoInterpreterIsRefusedBeforeAnyRun) {
  const std::string missing = (dir_ / "no-such-python").string();
  for (const std::string& command :
       {"bench --backends reference --threads 1 --repeats 1 --with-pytorch --peer-python " + missing,
        "compare --dataset synthetic --frameworks caffe --scale 0.001 --with-peers --peer-python " + missing}) {
    const auto o = ablate(command);
    EXPECT_NE(o.exit_code, 0) << command;
    EXPECT_HAS(o.err, "--peer-python " + missing + ": not an executable file");
    EXPECT_EQ(o.out.find("[1/1]"), std::string::npos) << o.out;
    EXPECT_EQ(o.out.find("images/s"), std::string::npos) << o.out;
  }
}

TEST(PeerOutput, ReadsTheLibrariesOfTheResultLine) {
  const PeerMeasure m = parse_peer_output(
      "peer_result torch=2.15.0 threads=2 images_per_s=2825 accuracy=0.5 peak_rss_bytes=1 blas=mkl onednn=3.13.3\n", 0);
  ASSERT_TRUE(m.completed()) << m.reason;
  EXPECT_EQ(m.version, "2.15.0");
  EXPECT_EQ(m.blas, "mkl");
  EXPECT_EQ(m.onednn, "3.13.3");
  const PeerMeasure old = parse_peer_output("peer_result torch=1.13.1 threads=1 images_per_s=1 accuracy=0.5 peak_rss_bytes=1\n", 0);
  EXPECT_EQ(old.blas, "") << "a line without them leaves them empty";
  EXPECT_EQ(old.onednn, "");
}

}  // namespace
}  // namespace ablate::bench::experiments
