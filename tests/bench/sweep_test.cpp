// `ablate sweep`: the grid (cartesian product, repeats innermost), bad factors named, and an
// end-to-end sweep on synthetic data with a tiny model that is rerun (nothing runs again) and
// then cut short in its last record (the damaged line is reported, only that run reruns).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "bench/run/results_reader.h"
#include "bench/experiments/sweep_grid.h"
#include "bench/experiments/sweep_runner.h"
#include "command_runner.h"
#include "tiny_run.h"

using namespace ablate::bench::run;
using namespace ablate::bench::experiments;
using ablate::bench::testing::CommandTest;

TEST(SweepGrid, ExpandsTheCartesianProductWithRepeats) {
  SweepSpec s;
  s.factors = {parse_vary("batch=16,64,256"), parse_vary("--backend=eigen,openblas")};
  s.repeats = 2;
  auto points = expand(s);
  ASSERT_EQ(points.size(), 12u);
  EXPECT_EQ(points[0].values.at("batch"), "16");
  EXPECT_EQ(points[0].values.at("backend"), "eigen");
  EXPECT_EQ(points[1].repeat, 1) << "repeats innermost";
  EXPECT_EQ(points[2].values.at("backend"), "openblas");
  EXPECT_EQ(points[11].values.at("batch"), "256");
  std::vector<std::string> ids;
  for (const auto& p : points) ids.push_back(run_identity(s, p));
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::unique(ids.begin(), ids.end()), ids.end()) << "every run has its own identity";
  SweepSpec none;
  EXPECT_EQ(expand(none).size(), 1u) << "no factor: the base alone";
}

TEST(SweepGrid, BadFactorsAreNamed) {
  for (const char* bad : {"batch", "=1,2", "colour=red", "out=a,b", "batch=", "batch=1,,2", "batch=1,1"}) {
    try {
      parse_vary(bad);
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("--vary"), std::string::npos) << e.what();
    }
  }
  SweepSpec twice;
  twice.factors = {parse_vary("batch=1,2"), parse_vary("batch=3")};
  EXPECT_THROW(check_spec(twice), std::invalid_argument);
  SweepSpec both;
  both.base["batch"] = "8";
  both.factors = {parse_vary("batch=1,2")};
  EXPECT_THROW(check_spec(both), std::invalid_argument);
}

TEST(SweepGrid, FlagsWithoutValueVaryOnAndOff) {
  SweepSpec s;
  s.base["framework"] = "torch";
  s.factors = {parse_vary("per-sample=on,off")};
  auto points = expand(s);
  EXPECT_EQ(point_args(s, points[0]).get("per-sample"), "true");
  EXPECT_FALSE(point_args(s, points[1]).has("per-sample"));
  EXPECT_EQ(point_args(s, points[1]).get("framework"), "torch");
}

TEST(SweepGrid, ValidationIsCappedOnSmallTrainingSets) {
  std::string note;
  EXPECT_EQ(capped_validation(10000, 6000, note), 1000);
  EXPECT_NE(note.find("capped from 10000 to 1000"), std::string::npos) << note;
  std::string none;
  EXPECT_EQ(capped_validation(5000, 60000, none), 5000);
  EXPECT_TRUE(none.empty());
}

class Sweep : public CommandTest {};

TEST_F(Sweep, ResumesWithoutRerunningAndRerunsOnlyADamagedRecord) {
  const auto results = (dir_ / "sweep.jsonl").string();
  const std::string cmd = "sweep --dataset synthetic --framework caffe --model " + ablate::bench::tiny::tiny_model_path() +
                          " --backend eigen --threads 1 --iterations 4 --test-iterations 2 --vary batch=8,16 --out " + results;
  auto first = ablate(cmd);
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  EXPECT_HAS(first.out, "2 run, 0 skipped");
  ResultsFile f = read_results(results);
  ASSERT_EQ(f.records.size(), 2u);
  EXPECT_EQ(text_of(field(f.records[0], "sweep.point.batch")), "8");
  EXPECT_EQ(text_of(field(f.records[1], "sweep.point.batch")), "16");
  EXPECT_EQ(number_of(field(f.records[1], "config.batch")), 16);
  EXPECT_EQ(number_of(field(f.records[1], "sweep.repeat")), 0);

  auto again = ablate(cmd);
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_HAS(again.out, "0 run, 2 skipped");
  EXPECT_EQ(read_results(results).records.size(), 2u);

  // Cut the last record half-way, as a run killed while appending would.
  std::string text = ablate::bench::testing::slurp(results);
  const auto second_line = text.find('\n') + 1;
  std::filesystem::resize_file(results, second_line + (text.size() - second_line) / 2);
  auto resumed = ablate(cmd);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
  EXPECT_HAS(resumed.out, "line 2 is damaged");
  EXPECT_HAS(resumed.out, "1 run, 1 skipped");
  EXPECT_HAS(resumed.out, "batch=16");
  ResultsFile after = read_results(results);
  EXPECT_TRUE(after.damaged.empty());
  ASSERT_EQ(after.records.size(), 2u);
  EXPECT_EQ(text_of(field(after.records[1], "sweep.point.batch")), "16");
}

TEST_F(Sweep, EveryStrategyRunsAndBadInputIsNamed) {
  const auto results = (dir_ / "s.jsonl").string();
  auto o = ablate("sweep --dataset synthetic --framework caffe --model " + ablate::bench::tiny::tiny_model_path() +
                  " --backend eigen --threads 1 --iterations 2 --test-iterations 1 --vary strategy=layerwise,static --out " +
                  results);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_HAS(o.out, "2 run, 0 skipped");  // every strategy of the table is built
  EXPECT_HAS(o.out, "0 failed");
  auto missing = ablate("sweep --dataset synthetic --vary batch=1,2");
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_HAS(missing.err, "--out");
  auto bad = ablate("sweep --dataset synthetic --vary colour=red --out " + results);
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_HAS(bad.err, "colour");
}

TEST_F(Sweep, AKilledSweepResumesWithoutRerunningFinishedRuns) {
  const auto results = (dir_ / "killed.jsonl").string();
  const std::string args = "sweep --dataset synthetic --framework caffe --model " + ablate::bench::tiny::tiny_model_path() +
                           " --backend eigen --threads 1 --iterations 30 --test-iterations 2 --vary batch=8,16,24,32,40 --out " +
                           results;
  // Killed part-way: timeout kills the process group, the sweep and the run it was training (how
  // far it got depends on the machine; every outcome is checked alike).
  std::system(("timeout -s KILL 0.5 " + std::string(ABLATE_BINARY) + " " + args + " >/dev/null 2>&1").c_str());
  const auto done = read_results(results).records.size();
  auto resumed = ablate(args);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
  EXPECT_HAS(resumed.out, std::to_string(5 - done) + " run, " + std::to_string(done) + " skipped");
  ResultsFile after = read_results(results);
  ASSERT_EQ(after.records.size(), 5u);
  std::set<std::string> points;
  for (const auto& r : after.records) points.insert(text_of(field(r, "sweep.point.batch")));
  EXPECT_EQ(points.size(), 5u) << "every point once";
}
