// Distributed sweeps under mpiexec with 2 ranks: the work queue hands every task out
// once and brings every result to rank 0; a 4-run sweep of a tiny model on synthetic data
// writes exactly its 4 records (rank 0 alone writes; no duplicate, no partial line; both ranks
// trained); an interrupted sweep (2 records and a cut third line in the file) runs only the 2
// missing runs; a run's forked process is outside the MPI job; --distributed runs are refused.
// A designed experiment (`ablate ablate`) likewise: its 8 runs over the ranks, 8 records each
// naming its rank, the same totals on every rank, and a second call finds every run done.
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bench/experiments/child_process.h"
#include "bench/experiments/design_runner.h"
#include "bench/experiments/designed_experiment.h"
#include "bench/run/results_reader.h"
#include "bench/experiments/sweep_runner.h"
#include "graph/distributed/communicator.h"
#include "graph/distributed/work_queue.h"

namespace ablate::graph::distributed {
namespace {

TEST(WorkQueue, EveryTaskRunsOnceAndEveryResultReachesRankZero) {
  std::vector<std::int64_t> tasks;
  for (std::int64_t t = 0; t < 9; ++t) tasks.push_back(t * 10);
  std::vector<std::int64_t> ran_here;
  std::map<std::int64_t, std::string> results;
  std::set<int> ranks;
  const std::string closing = run_work_queue(
      rank() == 0 ? tasks : std::vector<std::int64_t>{},  // only rank 0's list counts
      [&](std::int64_t task, const std::function<void()>& serve) {
        serve();
        ran_here.push_back(task);
        return "squared " + std::to_string(task * task);
      },
      [&](std::int64_t task, int r, const std::string& result) {
        EXPECT_TRUE(results.emplace(task, result).second) << "task " << task << " finished twice";
        ranks.insert(r);
      },
      [&] { return "closed after " + std::to_string(results.size()); });
  EXPECT_EQ(closing, "closed after 9") << "every rank gets rank 0's closing text";
  EXPECT_FALSE(ran_here.empty()) << "rank " << rank() << " got no task: the first tasks go one to each rank";
  if (rank() != 0) return;
  ASSERT_EQ(results.size(), tasks.size());
  for (std::int64_t t : tasks) EXPECT_EQ(results[t], "squared " + std::to_string(t * t));
  EXPECT_EQ(ranks.size(), static_cast<std::size_t>(size()));
}

TEST(SweepRunProcess, IsOutsideTheJob) {
  ASSERT_TRUE(launched());
  const bench::experiments::ChildOutcome o = bench::experiments::run_in_child([] {
    leave_in_forked_child();
    std::string seen = std::to_string(rank()) + " " + std::to_string(size()) + " " + (launched() ? "launched" : "alone");
    try {
      init();
      seen += " joined";
    } catch (const std::runtime_error& e) {
      seen += std::string(" refused: ") + e.what();
    }
    return seen;
  });
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_EQ(o.text.rfind("0 1 alone refused: ", 0), 0u) << o.text;
  EXPECT_NE(o.text.find("not part of the MPI job"), std::string::npos) << o.text;
  EXPECT_GT(size(), 1) << "the parent keeps its world";
}

class DistributedSweep : public ::testing::Test {
 protected:
  void SetUp() override {
    if (size() < 2) GTEST_SKIP() << "a distributed sweep needs 2 ranks or more";
    std::string dir;
    if (rank() == 0) {
      dir = (std::filesystem::temp_directory_path() / ("ablate-dsweep-" + std::to_string(::getpid()))).string();
      std::filesystem::remove_all(dir);
      std::filesystem::create_directories(dir);
      std::ofstream(dir + "/tiny.model") << "model tiny\ninput 1 28 28\nclasses 10\n"
                                            "layer c1 convolution outputs=4 kernel=5\n"
                                            "layer p1 pooling mode=max kernel=4 stride=4\n"
                                            "layer fc inner_product outputs=10\n"
                                            "layer loss softmax_loss\n";
    }
    dir_ = broadcast_text(dir);  // the same files on every rank (one machine)
    spec_.base = {{"dataset", "synthetic"}, {"framework", "caffe"},   {"model", dir_ + "/tiny.model"},
                  {"backend", "eigen"},     {"threads", "1"},         {"iterations", "3"},
                  {"test-iterations", "1"}};
    spec_.factors = {bench::experiments::parse_vary("batch=8,16,24,32")};
  }
  void TearDown() override {
    if (size() < 2) return;
    barrier();
    if (rank() == 0) std::filesystem::remove_all(dir_);
  }
  std::string dir_;
  bench::experiments::SweepSpec spec_;
};

// On rank 0: the file's records, checking that every line is whole and every run there once.
std::vector<nlohmann::json> records_checked(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_TRUE(!text.str().empty() && text.str().back() == '\n') << "the file ends with a whole line";
  const bench::run::ResultsFile f = bench::run::read_results(path);
  EXPECT_TRUE(f.damaged.empty()) << "a damaged line in " << path;
  std::set<std::string> ids;
  for (const auto& r : f.records) EXPECT_TRUE(ids.insert(bench::experiments::run_identity(r)).second) << "a run written twice";
  return f.records;
}

TEST_F(DistributedSweep, FourRunsOverTwoRanksWriteFourRecordsAndAResumeRunsOnlyTheMissing) {
  const std::string out = dir_ + "/sweep.jsonl";
  bench::experiments::SweepTotals totals;
  const auto rows = bench::experiments::run_sweeps({spec_}, out, false, totals);
  EXPECT_EQ(totals.runs, 4) << "rank " << rank() << " has rank 0's totals";
  EXPECT_EQ(totals.failed, 0);
  std::string kept;  // records 1 and 3, and half of record 2: a sweep cut short while appending
  if (rank() == 0) {
    ASSERT_EQ(rows.size(), 4u);
    const auto records = records_checked(out);
    ASSERT_EQ(records.size(), 4u);
    std::set<int> ranks;
    for (const auto& r : records) ranks.insert(static_cast<int>(bench::run::number_of(bench::run::field(r, "sweep.rank"), -1)));
    EXPECT_EQ(ranks.size(), static_cast<std::size_t>(std::min(size(), 4))) << "every rank trained a run";
    EXPECT_EQ(*ranks.begin(), 0) << "each record names its rank";
    std::ifstream in(out);
    std::vector<std::string> lines(4);
    for (auto& line : lines) std::getline(in, line);
    kept = lines[0] + "\n" + lines[2] + "\n";
    std::ofstream(out, std::ios::trunc) << kept << lines[1].substr(0, lines[1].size() / 2);
  } else {
    EXPECT_TRUE(rows.empty()) << "rank 0 alone has the rows";
  }
  barrier();

  bench::experiments::SweepTotals resumed;
  bench::experiments::run_sweeps({spec_}, out, false, resumed);
  EXPECT_EQ(resumed.runs, 2);
  EXPECT_EQ(resumed.skipped, 2);
  if (rank() != 0) return;
  const auto records = records_checked(out);
  ASSERT_EQ(records.size(), 4u);
  std::set<std::string> batches;
  for (const auto& r : records) batches.insert(bench::run::text_of(bench::run::field(r, "sweep.point.batch")));
  EXPECT_EQ(batches, (std::set<std::string>{"8", "16", "24", "32"}));
  std::ifstream in(out);
  std::string head(kept.size(), '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  EXPECT_EQ(head, kept) << "the records already there stay as they were";
}

TEST_F(DistributedSweep, DistributedRunsInADistributedSweepAreRefused) {
  spec_.base["distributed"] = "true";
  bench::experiments::SweepTotals totals;
  try {
    bench::experiments::run_sweeps({spec_}, dir_ + "/refused.jsonl", false, totals);
    ADD_FAILURE() << "a sweep of --distributed runs was accepted under mpiexec";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--distributed"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/refused.jsonl"));
}

TEST_F(DistributedSweep, ADesignSpreadsItsRunsOverTheRanksAndResumes) {
  namespace ex = bench::experiments;
  ex::DesignSpec design;
  design.base = spec_.base;
  design.factors = {ex::parse_vary("batch=8,16"), ex::parse_vary("precision=f32,f64")};
  design.repeats = 2;
  design.rerun_disturbed = 0;  // a loaded test machine must not add runs
  const ex::DesignPlan plan = ex::plan_design(design);
  const std::string out = dir_ + "/design.jsonl";
  const ex::DesignTotals totals = ex::run_design(design, plan, out, ex::child_process_runner(design, false), false);
  EXPECT_EQ(totals.runs, 8) << "rank " << rank() << " has rank 0's totals";
  EXPECT_EQ(totals.failed, 0);
  if (rank() == 0) {
    const bench::run::ResultsFile f = bench::run::read_results(out);
    ASSERT_EQ(f.records.size(), 8u);
    EXPECT_TRUE(f.damaged.empty());
    std::set<int> ranks;
    std::set<std::string> runs;
    for (const auto& r : f.records) {
      ranks.insert(static_cast<int>(bench::run::number_of(bench::run::field(r, "design.rank"), -1)));
      runs.insert(bench::run::field(r, "design.cell").dump() + " " + bench::run::field(r, "design.repeat").dump());
      EXPECT_EQ(bench::run::text_of(bench::run::field(r, "status")), "completed");
    }
    EXPECT_EQ(runs.size(), 8u) << "every (cell, repeat) once";
    EXPECT_EQ(ranks.size(), static_cast<std::size_t>(std::min(size(), 8))) << "every rank trained a run";
  }
  barrier();
  const ex::DesignTotals again = ex::run_design(design, plan, out, ex::child_process_runner(design, false), false);
  EXPECT_EQ(again.runs, 0);
  EXPECT_EQ(again.skipped, 8);
}

}  // namespace
}  // namespace ablate::graph::distributed
