// --threads against the machine: more threads than logical cores trains with a warning naming
// both numbers (oversubscription stays a factor a study may vary); beyond 8 x the cores it is
// refused naming the allowed range, before anything is allocated; explain and gradcheck take
// --data as run does.
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "bench/run/flags.h"
#include "command_runner.h"

namespace {

using Threads = ablate::bench::testing::CommandTest;
using namespace ablate::bench::run;

const std::string kTiny = " --dataset synthetic --backend reference --iterations 2 --batch 8 --test-iterations 1 --quiet";

TEST(ThreadCount, ParsesWithinTheBoundAndNamesTheRangeBeyondIt) {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  EXPECT_EQ(logical_cores(), cores);
  EXPECT_EQ(parse_thread_count("all", "--threads"), cores);
  EXPECT_EQ(parse_thread_count(std::to_string(8 * cores), "--threads"), 8 * cores);
  for (const std::string& bad : {std::to_string(8 * cores + 1), std::string("10000"), std::string("0")}) {
    try {
      parse_thread_count(bad, "--threads");
      ADD_FAILURE() << bad << " accepted";
    } catch (const std::invalid_argument& e) {
      const std::string expected = "--threads " + bad + ": expected 1 to " + std::to_string(8 * cores) + " (8 x this machine's " +
                                   std::to_string(cores) + " logical cores) or 'all'";
      EXPECT_EQ(std::string(e.what()), expected);
    }
  }
}

TEST_F(Threads, MoreThanTheCoresWarnsNamingBothNumbers) {
  const int cores = logical_cores();
  const auto over = ablate("run" + kTiny + " --threads " + std::to_string(cores + 1));
  EXPECT_EQ(over.exit_code, 0) << over.err;
  EXPECT_HAS(over.err, "warning: --threads " + std::to_string(cores + 1) + " is more than this machine's " +
                           std::to_string(cores) + " logical cores");
  const auto fits = ablate("run" + kTiny + " --threads " + std::to_string(cores));
  EXPECT_EQ(fits.exit_code, 0) << fits.err;
  EXPECT_EQ(fits.err.find("warning: --threads"), std::string::npos) << fits.err;
  const auto absurd = ablate("run" + kTiny + " --threads 10000");
  EXPECT_NE(absurd.exit_code, 0);
  EXPECT_HAS(absurd.err, "--threads 10000: expected 1 to " + std::to_string(8 * cores));
  const auto bench = ablate("bench --model lenet --threads 10000");
  EXPECT_NE(bench.exit_code, 0);
  EXPECT_HAS(bench.err, "--threads 10000: expected 1 to");
}

TEST_F(Threads, ExplainAndGradcheckTakeData) {
  const std::string missing = (dir_ / "no-such-folder").string();
  const auto explain = ablate("explain --framework caffe --dataset mnist --data " + missing + " --batch 2 --out " + (dir_ / "e").string());
  EXPECT_NE(explain.exit_code, 0);
  EXPECT_HAS(explain.err, missing);  // the folder was read: its absence is the error, not an unknown flag
  EXPECT_EQ(explain.err.find("unknown option"), std::string::npos) << explain.err;
  const auto grad = ablate("gradcheck --framework caffe --dataset mnist --data " + missing + " --parameter conv1.weight");
  EXPECT_NE(grad.exit_code, 0);
  EXPECT_HAS(grad.err, missing);
}

}  // namespace
