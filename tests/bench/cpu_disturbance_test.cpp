// What other processes take while ablate measures (bench/run/cpu_disturbance.h):
// the arithmetic of a window, a busy child process seen as others' CPU, the resource monitor's
// and the record's fields, the lines of bench and the run summary, and --wait-quiet giving up
// after its time (a threshold of 0 cores can never be met) or coming (one above the machine).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "bench/experiments/attribution_measure.h"
#include "bench/run/cpu_disturbance.h"
#include "bench/run/disturbance_log.h"
#include "bench/run/resource_monitor.h"
#include "command_runner.h"

namespace ablate::bench::run {
namespace {

// A child process that busy-loops until killed.
struct BusyChild {
  pid_t pid = ::fork();
  BusyChild() {
    if (pid == 0) {
      volatile unsigned long spin = 0;
      for (;;) spin = spin + 1;
    }
  }
  ~BusyChild() {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
};

TEST(CpuDisturbance, AWindowSubtractsOwnTimeAndClampsAtZero) {
  CpuCounters a, b;
  a.known = b.known = true;
  b.cpus = 2;
  a.wall_s = 10, b.wall_s = 12;
  a.busy_s = 100, b.busy_s = 103;  // 3 CPU seconds busy in 2 s
  a.own_s = 5, b.own_s = 6;        // 1 of them ours
  a.steal_s = 1, b.steal_s = 1.2;
  const Disturbance d = disturbance_between(a, b);
  EXPECT_TRUE(d.known);
  EXPECT_DOUBLE_EQ(d.others_cores, 1.0);
  EXPECT_NEAR(d.steal_cores, 0.1, 1e-12);
  EXPECT_EQ(d.cpus, 2);
  b.own_s = 9;  // accounting skew: more own time than the CPUs saw
  EXPECT_EQ(disturbance_between(a, b).others_cores, 0.0);
  b.known = false;
  EXPECT_FALSE(disturbance_between(a, b).known);
  EXPECT_FALSE(is_disturbed(disturbance_between(a, b), 0.0)) << "unknown is never flagged";
}

TEST(CpuDisturbance, ABusyChildIsSeenAsOthers) {
  const CpuCounters before = read_cpu_counters();
  ASSERT_TRUE(before.known) << "/proc/stat unreadable";
  Disturbance d;
  {
    BusyChild child;
    ASSERT_GT(child.pid, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    d = disturbance_between(before, read_cpu_counters());  // before the child is reaped (then it would be ours)
  }
  EXPECT_GT(d.others_cores, 0.3) << "a busy loop ran for 1.5 s";
  EXPECT_LE(d.others_cores, d.cpus + 0.25);
  EXPECT_GE(d.steal_cores, 0.0);
  EXPECT_GE(d.cpus, 1);
  EXPECT_TRUE(is_disturbed(d, 0.25));
  EXPECT_NE(disturbance_text(d).find("others used "), std::string::npos);
}

TEST(CpuDisturbance, TheMonitorRecordsOthersPerSampleAndInAll) {
  ResourceMonitor monitor(20.0);
  monitor.start();
  ResourceSummary s;
  {
    BusyChild child;
    std::this_thread::sleep_for(std::chrono::milliseconds(1200));
    s = monitor.stop();  // before the child is reaped: a reaped child's time counts as ours (RUSAGE_CHILDREN)
  }
  ASSERT_TRUE(s.disturbance.known);
  EXPECT_GT(s.disturbance.others_cores, 0.3) << "the busy child ran for most of the span";
  EXPECT_LE(s.disturbance.others_cores, s.disturbance.cpus + 0.25);
  const auto samples = monitor.samples();
  ASSERT_GE(samples.size(), 5u);
  double most = 0;
  for (const auto& x : samples) {
    EXPECT_GE(x.others_cores, 0.0);
    EXPECT_GE(x.steal_cores, 0.0);
    most = std::max(most, x.others_cores);
  }
  EXPECT_GT(most, 0.3);
}

TEST(CpuDisturbance, WaitForQuietGivesUpAfterItsTimeOrComes) {
  const auto t0 = std::chrono::steady_clock::now();
  const QuietWait never = wait_for_quiet(2, 0.0);  // nobody uses less than 0 cores
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_FALSE(never.came);
  EXPECT_GE(waited, 1.9);
  EXPECT_LT(waited, 3.5);
  EXPECT_NE(quiet_wait_text(never, 2).find("not quiet within 2 s"), std::string::npos) << quiet_wait_text(never, 2);
  const QuietWait soon = wait_for_quiet(5, 1000.0);  // more cores than any machine here
  EXPECT_TRUE(soon.came);
  EXPECT_LT(soon.waited_s, 2.5);
  EXPECT_NE(quiet_wait_text(soon, 5).find("quiet after"), std::string::npos);
}

TEST(DisturbanceLog, NamesTheMeasurementsAboveTheThreshold) {
  DisturbanceLog log(0.25);
  Disturbance calm, busy;
  calm.known = busy.known = true;
  calm.others_cores = 0.1;
  busy.others_cores = 0.9;
  log.add("openblas 2 thr round 1", calm);
  log.add("openblas 2 thr round 2", busy);
  EXPECT_EQ(log.disturbed(), 1);
  const std::string line = log.summary();
  EXPECT_NE(line.find("DISTURBED (others above 0.25 cores): 1 of 2 measurements: openblas 2 thr round 2 (others 0.90"),
            std::string::npos) << line;
  EXPECT_EQ(line.find("round 1"), std::string::npos) << line;
  DisturbanceLog quiet(0.25);
  quiet.add("caffe", calm);
  EXPECT_EQ(quiet.summary().rfind("no measurement disturbed: others used at most 0.10 cores", 0), 0u) << quiet.summary();
}

class DisturbanceCli : public testing::CommandTest {};

TEST_F(DisturbanceCli, RunRecordAndSummaryShowOthersCpu) {
  const std::string results = (dir_ / "r.jsonl").string();
  const testing::Outcome o = ablate("run --dataset synthetic --backend reference --iterations 3 --batch 8 "
                                    "--test-iterations 1 --quiet --disturbed-above 0.5 --out " + results);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_HAS(o.out, "others' CPU       others used ");
  std::ifstream in(results);
  std::string line;
  std::getline(in, line);
  const nlohmann::json record = nlohmann::json::parse(line);
  const auto& d = record["metrics"]["disturbance"];
  ASSERT_TRUE(d["others_cores"].is_number()) << d;
  EXPECT_GE(d["others_cores"].get<double>(), 0.0);
  EXPECT_LE(d["others_cores"].get<double>(), d["cpus"].get<double>() + 0.5);
  EXPECT_GE(d["steal_cores"].get<double>(), 0.0);
  EXPECT_EQ(d["disturbed_above"], 0.5);
  EXPECT_EQ(d["disturbed"].get<bool>(), d["others_cores"].get<double>() > 0.5);
  for (const auto& sample : record["resources"]) EXPECT_TRUE(sample.contains("others_cores")) << sample;
  const testing::Outcome bad = ablate("run --dataset synthetic --iterations 1 --disturbed-above -1");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_HAS(bad.err, "--disturbed-above -1: expected a number of cores >= 0");
}

TEST_F(DisturbanceCli, BenchWaitsForQuietGivesUpAndFlagsDisturbedRounds) {
  const auto t0 = std::chrono::steady_clock::now();
  const testing::Outcome o = ablate("bench --backends reference --threads 1 --repeats 1 --iterations 1 --warmup 0 "
                                    "--batch 8 --wait-quiet 1 --disturbed-above 0");
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_HAS(o.out, "round 1: not quiet within 1 s");
  EXPECT_HAS(o.out, "measuring anyway");
  EXPECT_GE(waited, 1.0);
  const testing::Outcome calm = ablate("bench --backends reference --threads 1 --repeats 1 --iterations 1 --warmup 0 "
                                       "--batch 8 --wait-quiet 3 --disturbed-above 1000");
  ASSERT_EQ(calm.exit_code, 0) << calm.err;
  EXPECT_HAS(calm.out, "round 1: quiet after");
  EXPECT_HAS(calm.out, "no measurement disturbed: others used at most");
  {
    BusyChild child;  // others hold a core while bench measures
    const testing::Outcome busy = ablate("bench --backends reference --threads 1 --repeats 1 --iterations 4 "
                                         "--warmup 0 --batch 16 --disturbed-above 0.3");
    ASSERT_EQ(busy.exit_code, 0) << busy.err;
    EXPECT_HAS(busy.out, "DISTURBED (others above 0.3 cores): 1 of 1 measurements: reference 1 thr round 1");
  }
}

TEST_F(DisturbanceCli, CompareFlagsADisturbedRunAndSaysWhetherQuietCame) {
  const std::string results = (dir_ / "c.jsonl").string();
  testing::Outcome o;
  {
    BusyChild child;
    o = ablate("compare --dataset synthetic --frameworks caffe --scale 0.001 --threads 1 --quiet --wait-quiet 1 "
               "--disturbed-above 0.3 --out " + results);
  }
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_HAS(o.out, "not quiet within 1 s");
  EXPECT_HAS(o.out, "DISTURBED (others above 0.3 cores): 1 of 1 measurements: caffe (others ");
  EXPECT_HAS(o.out, "threads wait: bounded:");
  std::ifstream in(results);
  std::string line;
  std::getline(in, line);
  const nlohmann::json d = nlohmann::json::parse(line)["metrics"]["disturbance"];
  EXPECT_EQ(d["disturbed_above"], 0.3) << "the forked run's record follows compare's threshold";
}

// compare --attribute's rounds: a sample during which another process was busy is taken once
// more and the quiet second take kept. Needs a quiet host to tell the neighbour from the rest:
// skipped when others already use more than the threshold.
TEST(CpuDisturbance, AnAttributionSampleTakenWhileOthersWereBusyIsTakenAgain) {
  const CpuCounters start = read_cpu_counters();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  if (is_disturbed(disturbance_between(start, read_cpu_counters()), disturbed_above()))
    GTEST_SKIP() << "the host is busy: a quiet sample cannot be told from a disturbed one";
  std::shared_ptr<BusyChild> neighbour;
  int calls = 0;
  std::vector<experiments::Measure> measures(1);
  measures[0].label = "busy-neighbour";
  measures[0].sample = [&] {
    if (++calls == 1) {  // the first take: a neighbour spins, still running when it ends
      neighbour = std::make_shared<BusyChild>();
      std::this_thread::sleep_for(std::chrono::milliseconds(1200));
      return 100.0;
    }
    neighbour.reset();  // the second take: the neighbour is gone
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return 200.0;
  };
  ::testing::internal::CaptureStdout();
  const auto samples = experiments::interleaved_samples(measures, 1, "test");
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(calls, 2) << out;
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0], std::vector<double>{200.0}) << "the second take is the sample\n" << out;
  EXPECT_NE(out.find("busy-neighbour DISTURBED (others used"), std::string::npos) << out;
}

}  // namespace
}  // namespace ablate::bench::run
