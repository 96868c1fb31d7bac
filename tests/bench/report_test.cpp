// `ablate report`: on a small made-up results file (two frameworks, a swept batch size with
// repeats, curves and resource samples, one damaged line) it writes report.md with a row per
// run, sweep points with the spread of repeats and the batch-size correlations, and PNG files
// (checked by their magic bytes) when matplotlib is there; without it, the Markdown and a
// reason. Pearson's r on known data.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "bench/experiments/report_tables.h"
#include "bench/run/result_record.h"
#include "command_runner.h"

using namespace ablate::bench::run;
using namespace ablate::bench::experiments;
using ablate::bench::testing::CommandTest;
namespace fs = std::filesystem;

namespace {

std::string record(const std::string& framework, std::int64_t batch, int repeat, double seconds, double accuracy) {
  RunResult r;
  r.config.framework = framework;
  r.config.strategy = framework == "caffe" ? "layerwise" : "dynamic";
  r.config.backend.name = "eigen";
  r.config.batch = batch;
  r.metrics.train_time_s = seconds;
  r.metrics.test_time_s = 0.1;
  r.metrics.accuracy = accuracy;
  r.metrics.peak_rss_bytes = (100 + batch) << 20;
  r.metrics.cpu_util = 0.5 + static_cast<double>(batch) / 256;
  r.metrics.time_to_accuracy.target = 0.5;
  r.metrics.time_to_accuracy.reached = true;
  r.metrics.time_to_accuracy.train_s = seconds / 2;
  r.curve = {{10, seconds / 2, 1.0, accuracy / 2, {}, {}}, {20, seconds, 0.5, accuracy, {}, {}}};
  for (int i = 0; i < 5; ++i) r.resources.push_back({0.1 * i, 0.5 + 0.1 * i, (50 + 10 * i) << 20, 2});
  std::string line = to_json_line(r);
  line.pop_back();
  return line + ",\"sweep\":{\"label\":\"sweep\",\"base\":\"sweep framework=" + framework + "\",\"point\":{\"batch\":\"" +
         std::to_string(batch) + "\"},\"repeat\":" + std::to_string(repeat) + "}}\n";
}

bool is_png(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  char magic[8] = {};
  in.read(magic, 8);
  return in && std::string(magic, 8) == "\x89PNG\r\n\x1a\n";
}

}  // namespace

TEST(ReportTables, PearsonOnKnownData) {
  EXPECT_NEAR(*pearson({1, 2, 3, 4}, {2, 4, 6, 8}), 1.0, 1e-12);
  EXPECT_NEAR(*pearson({1, 2, 3}, {3, 2, 1}), -1.0, 1e-12);
  EXPECT_NEAR(*pearson({1, 2, 3, 4}, {1, 3, 2, 4}), 0.8, 1e-12);
  EXPECT_FALSE(pearson({1, 2}, {1, 2}));
  EXPECT_FALSE(pearson({1, 1, 1}, {1, 2, 3}));
}

class Report : public CommandTest {
 protected:
  fs::path write_results() {
    fs::path p = dir_ / "results.jsonl";
    std::ofstream out(p);
    for (int rep = 0; rep < 2; ++rep)
      for (std::int64_t b : {16, 64, 256}) out << record("caffe", b, rep, 1.0 + rep * 0.2 + b / 100.0, 0.8 + b / 10000.0);
    out << record("torch", 10, 0, 3.0, 0.9);
    out << "{\"status\":\"compl\n";  // damaged
    return p;
  }
};

TEST_F(Report, WritesTablesCorrelationsAndPngPlots) {
  fs::path results = write_results(), out = dir_ / "report";
  auto o = ablate("report " + results.string() + " --out " + out.string());
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  std::string md = ablate::bench::testing::slurp(out / "report.md");
  EXPECT_HAS(md, "| 7 | torch | dynamic | eigen |");
  EXPECT_HAS(md, "1 damaged lines skipped (line 8)");
  EXPECT_HAS(md, "| batch=16 | 2 | 1.26 ± 0.14 |");  // (1.16, 1.36): mean 1.26, s.d. 0.141
  EXPECT_HAS(md, "batch size vs peak RSS: r = +");
  EXPECT_HAS(md, "batch size vs mean CPU utilisation: r = +");
  EXPECT_HAS(md, "time to accuracy");
  const bool matplotlib = std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") == 0;
  if (!matplotlib) {
    EXPECT_HAS(o.out, "plots skipped");
    GTEST_SKIP() << "matplotlib is not installed for /usr/bin/python3: PNGs not checked";
  }
  for (const char* png : {"accuracy_vs_time.png", "framework_bars.png", "resources_over_time.png", "resources_vs_batch.png"})
    EXPECT_TRUE(is_png(out / png)) << png << "\n" << o.out << ablate::bench::testing::slurp(out / "plots.log");
  int sweeps = 0;  // one per sweep base: framework=caffe and framework=torch
  for (const auto& e : fs::directory_iterator(out))
    if (e.path().filename().string().rfind("sweep_sweep_", 0) == 0) sweeps += is_png(e.path());
  EXPECT_EQ(sweeps, 2);
  EXPECT_HAS(md, "![accuracy_vs_time.png](accuracy_vs_time.png)");
}

TEST_F(Report, WithoutMatplotlibTheMarkdownIsStillWritten) {
  fs::path results = write_results(), out = dir_ / "report";
  auto o = ablate("report " + results.string() + " --out " + out.string() + " --python " + (dir_ / "no-python").string());
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_HAS(o.out, "plots skipped");
  EXPECT_HAS(ablate::bench::testing::slurp(out / "report.md"), "Plots skipped:");
  auto missing = ablate("report " + (dir_ / "none.jsonl").string() + " --out " + out.string());
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_HAS(missing.err, "none.jsonl");
}
