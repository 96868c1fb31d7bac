// Nothing lost: a run killed with SIGKILL after a snapshot and resumed from it ends
// with the same weights, optimizer state and loss curve as the run that was never stopped
// (reference backend, every strategy this build has, a tiny model); SIGINT stops at a step boundary with a
// snapshot and an "interrupted" record; a snapshot of another configuration is refused.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "bench/run/run_snapshot.h"
#include "tiny_run.h"
#include "graph/checkpoint_file.h"
#include "graph/engine.h"

namespace fs = std::filesystem;

namespace ablate::bench::run {
namespace {

class Resume : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ablate-resume-" + std::to_string(::getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // The run under test: 12 iterations of a tiny convolutional model on synthetic data, a
  // snapshot every 4.
  std::string run_args(const std::string& strategy, const std::string& snapshot) const {
    return "run --dataset synthetic --model " + tiny::tiny_model_path() + " --backend reference --strategy " + strategy +
           " --iterations 12 --batch 8 --test-batch 50 --test-iterations 1 --test-interval 6 --snapshot-every 4 "
           "--snapshot " + snapshot + " --quiet";
  }

  // Runs `program args`; returns the exit status, or -1 if a signal ended it.
  int ablate(const std::string& program, const std::string& args) {
    const std::string cmd = "exec " + program + " " + args + " >" + path("out.txt") + " 2>" + path("err.txt");
    const int status = std::system(cmd.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  int ablate(const std::string& args) { return ablate(ABLATE_BINARY, args); }

  // Starts ablate in the background and sends `sig` once `file` exists; returns the exit status.
  int run_and_signal(const std::string& args, const std::string& file, int sig) {
    const pid_t child = fork();
    if (child == 0) {
      const std::string cmd = "exec " + std::string(ABLATE_BINARY) + " " + args + " >/dev/null 2>" + path("err.txt");
      execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (!fs::exists(file) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    kill(child, sig);
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  fs::path dir_;
};

TEST_F(Resume, KilledAndResumedRunEndsAsTheUninterruptedOne) {
  for (const std::string& strategy : graph::strategy_names()) {
    SCOPED_TRACE(strategy);
    const std::string whole = path(strategy + "-whole.ckpt"), cut = path(strategy + "-cut.ckpt");
    ASSERT_EQ(ablate(run_args(strategy, whole)), 0) << std::ifstream(path("err.txt")).rdbuf();

    // Killed (SIGKILL, by itself: the moment does not depend on the machine's speed) right after
    // the snapshot of iteration 8.
    EXPECT_EQ(ablate("env ABLATE_KILL_AFTER_SNAPSHOT=8 " + std::string(ABLATE_BINARY), run_args(strategy, cut)), -1);
    EXPECT_EQ(graph::read_checkpoint(cut).meta("iteration"), "8");
    ASSERT_EQ(ablate(run_args(strategy, cut) + " --resume " + cut), 0) << std::ifstream(path("err.txt")).rdbuf();

    const graph::Checkpoint a = graph::read_checkpoint(whole), b = graph::read_checkpoint(cut);
    EXPECT_EQ(a.meta("iteration"), "12");
    EXPECT_EQ(b.meta("iteration"), "12");
    ASSERT_EQ(a.tensors.size(), b.tensors.size());
    for (std::size_t i = 0; i < a.tensors.size(); ++i) {
      const auto& [name, t] = a.tensors[i];
      const kernels::Tensor& u = b.tensor(name);
      for (std::int64_t k = 0; k < t.numel(); ++k) ASSERT_EQ(t.at(k), u.at(k)) << name << "[" << k << "]";
    }
    const auto ca = decode_curve(a.meta("curve"), "a"), cb = decode_curve(b.meta("curve"), "b");
    ASSERT_EQ(ca.size(), cb.size());
    for (std::size_t i = 0; i < ca.size(); ++i) {
      EXPECT_EQ(ca[i].iteration, cb[i].iteration);
      EXPECT_EQ(ca[i].loss, cb[i].loss) << "iteration " << ca[i].iteration;
      EXPECT_EQ(ca[i].test_accuracy, cb[i].test_accuracy) << "iteration " << ca[i].iteration;
    }
  }
}

TEST_F(Resume, SigintStopsWithASnapshotAndAnInterruptedRecord) {
  const std::string snapshot = path("stop.ckpt"), results = path("r.jsonl");
  const int status =
      run_and_signal(run_args("layerwise", snapshot) + " --iterations 100000 --out " + results, snapshot, SIGINT);
  EXPECT_EQ(status, 130);
  std::stringstream record;
  record << std::ifstream(results).rdbuf();
  EXPECT_NE(record.str().find("\"status\":\"interrupted\""), std::string::npos) << record.str().substr(0, 300);
  EXPECT_NE(record.str().find("SIGINT after iteration"), std::string::npos);
  const graph::Checkpoint c = graph::read_checkpoint(snapshot);
  EXPECT_GT(std::stoll(c.meta("iteration")), 0);
}

TEST_F(Resume, SnapshotOfAnotherConfigurationIsRefused) {
  const std::string snapshot = path("s.ckpt");
  ASSERT_EQ(ablate(run_args("layerwise", snapshot)), 0);
  EXPECT_NE(ablate(run_args("layerwise", snapshot) + " --batch 16 --resume " + snapshot), 0);
  std::stringstream err;
  err << std::ifstream(path("err.txt")).rdbuf();
  EXPECT_NE(err.str().find("another configuration: batch 8 there, 16 here"), std::string::npos) << err.str();
  std::ofstream(path("junk.ckpt")) << "not a checkpoint";
  EXPECT_NE(ablate(run_args("layerwise", snapshot) + " --resume " + path("junk.ckpt")), 0);
  err.str("");
  err << std::ifstream(path("err.txt")).rdbuf();
  EXPECT_NE(err.str().find("junk.ckpt: not an ablate checkpoint"), std::string::npos) << err.str();
}

// A refused resume names the numbers as a preset writes them (0.05, not 0.050000000000000003),
// and a snapshot written with 17 digits by an earlier ablate still matches the same value.
TEST(ResumeFingerprint, NumbersInTheirShortestExactForm) {
  RunConfig c;
  c.optimizer.lr.base_lr = 0.05;
  const std::string saved = snapshot_fingerprint(c);
  ASSERT_NE(saved.find("\nbase_lr 0.05\n"), std::string::npos) << saved;
  std::string earlier = saved;
  earlier.replace(earlier.find("base_lr 0.05\n"), 13, "base_lr 0.050000000000000003\n");
  EXPECT_NO_THROW(check_fingerprint(earlier, c, "s.ckpt"));
  c.optimizer.lr.base_lr = 0.1;
  try {
    check_fingerprint(earlier, c, "s.ckpt");
    FAIL() << "another base_lr was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("base_lr 0.05 there, 0.1 here"), std::string::npos) << e.what();
  }
  EXPECT_EQ(exact(1.0 / 3.0), "0.3333333333333333");
  EXPECT_EQ(std::stod(exact(1.0 / 3.0)), 1.0 / 3.0);
}

}  // namespace
}  // namespace ablate::bench::run
