// End-to-end tests of `ablate compare` on synthetic data: a shortened comparison prints the
// study's table, writes each run's record and the Markdown report; the budget path warms up,
// chooses a factor and says so; bad input and failed runs exit non-zero. Then the factor
// choice and the table on made-up figures.
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "bench/experiments/compare_budget.h"
#include "command_runner.h"
#include "bench/experiments/compare_table.h"

namespace fs = std::filesystem;
using namespace ablate::bench::run;
using namespace ablate::bench::experiments;

namespace {

using ablate::bench::testing::slurp;
using Compare = ablate::bench::testing::CommandTest;

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE((haystack).find(needle), std::string::npos) << "missing '" << (needle) << "' in:\n" << (haystack)

RunConfig iterations_config(std::int64_t iterations, std::int64_t batch) {
  RunConfig c;
  c.iterations = iterations;
  c.batch = batch;
  c.test_batch = 100;
  return c;
}

}  // namespace

TEST_F(Compare, ShortenedComparisonPrintsTheTableWritesRecordsAndReport) {
  fs::path results = dir_ / "runs.jsonl";
  auto o = ablate("compare --dataset synthetic --frameworks caffe --scale 0.001 --threads 1 --quiet --out " + results.string() +
                  " --report " + (dir_ / "report").string());
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  for (const char* s : {"length factor 0.001", "10 of 10000 iterations", "train s", "test s", "accuracy", "to 0.9",
                        "peak RSS", "mean CPU", "caffe", "completed", "512.18", "study", "2017", "uniform timing"})
    EXPECT_CONTAINS(o.out, s);
  std::string records = slurp(results);
  EXPECT_EQ(std::count(records.begin(), records.end(), '\n'), 1);
  EXPECT_CONTAINS(records, "\"framework\":\"caffe\"");
  EXPECT_CONTAINS(records, "\"length_scale\":0.001");
  EXPECT_CONTAINS(records, "\"iterations\":10,");
  std::string report = slurp(dir_ / "report" / "report.md");
  EXPECT_CONTAINS(report, "| caffe | completed | 10 of 10000 iterations |");
  EXPECT_CONTAINS(report, "ablate run --framework caffe --dataset synthetic --threads 1 --scale 0.001");
  EXPECT_CONTAINS(records, "\"threads\":1,");
  EXPECT_CONTAINS(report, "study train s");
  // A curve for every framework: 8 evenly spaced tests (7 along the way, the final one), and the
  // training loss over time, in the record and in compare.json for the plots.
  EXPECT_CONTAINS(records, "\"curve_points\":8");
  const nlohmann::json record = nlohmann::json::parse(records.substr(0, records.find('\n')));
  int tests = 0;
  for (const auto& p : record["curve"]) tests += p.contains("test_accuracy");
  EXPECT_EQ(tests, 8) << record["curve"].dump();
  const nlohmann::json plotted = nlohmann::json::parse(slurp(dir_ / "report" / "compare.json"));
  EXPECT_EQ(plotted["rows"][0]["test_points"].size(), 8u);
  EXPECT_GE(plotted["rows"][0]["loss_points"].size(), 2u);
  EXPECT_CONTAINS(o.out, "--curve-points 8");
  EXPECT_TRUE(fs::exists(dir_ / "report" / "index.html"));
}

TEST_F(Compare, BudgetWarmsUpAndChoosesOneFactor) {
  auto o = ablate("compare --dataset synthetic --frameworks caffe --budget 2 --threads 1 --quiet --timing framework");
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_CONTAINS(o.out, "warm-up caffe");
  EXPECT_CONTAINS(o.out, "training images/s");
  EXPECT_CONTAINS(o.out, "budget 2 s");
  EXPECT_CONTAINS(o.out, "of 10000 iterations");
  EXPECT_CONTAINS(o.out, "framework timing");
}

TEST_F(Compare, BadInputIsNamedAndFailedRunsExitNonZero) {
  auto f = ablate("compare --dataset synthetic --frameworks caffe,mxnet");
  EXPECT_NE(f.exit_code, 0);
  EXPECT_CONTAINS(f.err, "mxnet");
  auto b = ablate("compare --dataset synthetic --budget soon");
  EXPECT_NE(b.exit_code, 0);
  EXPECT_CONTAINS(b.err, "--budget soon");
  auto t = ablate("compare --dataset synthetic --timing wall");
  EXPECT_NE(t.exit_code, 0);
  EXPECT_CONTAINS(t.err, "--timing wall");
  // The data directory is read by the run itself: the row fails, the comparison goes on.
  auto r = ablate("compare --dataset mnist --data " + (dir_ / "none").string() + " --frameworks caffe --scale 0.001");
  auto th = ablate("compare --dataset synthetic --threads 0");
  EXPECT_NE(th.exit_code, 0);
  EXPECT_CONTAINS(th.err, "--threads 0");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_CONTAINS(r.out, "failed");
  EXPECT_CONTAINS(r.out, "none");
  EXPECT_CONTAINS(r.err, "1 of 1 framework runs failed");
}

TEST(CompareBudget, FactorFitsTheBudgetAndRoundsDown) {
  WarmupMeasure m;
  m.train_images_per_s = 6400;  // 10,000 x 64 images: 100 s at factor 1
  m.eval_images_per_s = 1e12;
  m.train_count = 60000;
  m.test_count = 10000;
  std::vector<RunConfig> one = {iterations_config(10000, 64)};
  FactorChoice half = choose_factor(one, {m}, 50);
  EXPECT_DOUBLE_EQ(half.factor, 0.49) << "just under 0.5, two significant digits";
  EXPECT_LE(half.estimate_s, 50);
  EXPECT_DOUBLE_EQ(choose_factor(one, {m}, 1000).factor, 1) << "the full length fits";
  WarmupMeasure slow = m;
  slow.setup_s = 100;
  FactorChoice over = choose_factor(one, {slow}, 50);
  EXPECT_FALSE(over.fits);
  // Two frameworks share one factor: 100 s + 300 s at 1, budget 100 s -> 0.25.
  WarmupMeasure third = m;
  third.train_images_per_s = 6400.0 / 3;
  FactorChoice both = choose_factor({iterations_config(10000, 64), iterations_config(10000, 64)}, {m, third}, 100);
  EXPECT_NEAR(both.factor, 0.25, 0.0100001);
  EXPECT_LE(both.estimate_s, 100);
}

TEST(CompareBudget, EstimateCountsTheRecipesEvaluations) {
  WarmupMeasure m;
  m.train_images_per_s = 1000;
  m.eval_images_per_s = 2000;
  m.train_count = 50000;
  m.test_count = 10000;
  m.validation_count = 10000;
  RunConfig theano = iterations_config(1000, 500);  // 500 s of training
  theano.validation_interval = 100;                 // 10 validations of 10,000: 50 s
  theano.patience = 10000;                          // up to 10 tests at new bests: 50 s, + the final: 5 s
  EXPECT_DOUBLE_EQ(estimate_seconds(theano, m, 1), 500 + 50 + 55);
  RunConfig tf = iterations_config(1000, 50);       // 50 s of training
  tf.train_accuracy_interval = 100;                 // 10 batches of 50: 0.25 s; final test 5 s
  EXPECT_DOUBLE_EQ(estimate_seconds(tf, m, 1), 50 + 0.25 + 5);
}

TEST(CompareTable, RowsTravelAsTextAndPrintNextToTheStudy) {
  CompareRow r;
  r.framework = "caffe";
  r.state = "diverged";
  r.note = "loss is nan\nat iteration 3";
  r.train_s = 1.5;
  r.accuracy = 0.25;
  r.peak_rss_bytes = 50 << 20;
  CompareRow back;
  back.framework = "caffe";
  read_measurements(to_text(r), back);
  EXPECT_EQ(back.state, "diverged");
  EXPECT_EQ(back.note, "loss is nan at iteration 3");
  EXPECT_DOUBLE_EQ(back.train_s, 1.5);
  EXPECT_EQ(back.peak_rss_bytes, 50 << 20);
  CompareRow skipped;
  skipped.framework = "torch";
  skipped.state = "not run";
  skipped.note = "the dynamic strategy is not built yet";
  CompareSummary s;
  s.dataset = "cifar10";
  s.family = "cifar10";
  s.budget = "budget full";
  std::string text = text_table(s, {back, skipped});
  EXPECT_CONTAINS(text, "diverged");
  EXPECT_CONTAINS(text, "loss is nan");
  EXPECT_CONTAINS(text, "the dynamic strategy is not built yet");
  EXPECT_CONTAINS(text, "2708.88") << "the study's CIFAR-10 figures for Caffe";
  EXPECT_CONTAINS(text, "46850.68");
  std::string md = markdown_report(s, {back, skipped}, {});
  std::istringstream lines(md);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("| caffe", 0) == 0 || line.rfind("| torch", 0) == 0 || line.rfind("|---", 0) == 0) {
      EXPECT_EQ(std::count(line.begin(), line.end(), '|'), 13) << line;
    }
}

TEST_F(Compare, HelpNamesCompareAndTheNewRunFlags) {
  auto top = ablate("--help");
  EXPECT_CONTAINS(top.out, "compare");
  auto c = ablate("compare --help");
  EXPECT_EQ(c.exit_code, 0);
  for (const char* opt : {"--dataset", "--budget", "--frameworks", "--out", "--report", "--scale", "--timing", "--backend",
                          "--threads"})
    EXPECT_CONTAINS(c.out, opt);
  auto r = ablate("run --help");
  for (const char* opt : {"--strategy", "--caching-allocator", "--per-sample", "--passes", "--executor",
                          "--inter-op-threads", "--weight-average", "--validation-count", "--patience",
                          "--target-accuracy", "--test-interval-epochs", "--timing"})
    EXPECT_CONTAINS(r.out, opt);
}
