// `ablate paper`: --list names every experiment family; each family's plan (factors, values
// relative to the presets); and every family run at --scale 0.01 on synthetic data in small
// variants (mostly caffe, the first two values of each factor, 5 iterations, one thread), and nothing
// crashes.
#include <gtest/gtest.h>

#include "bench/experiments/paper_families.h"
#include "bench/run/results_reader.h"
#include "command_runner.h"

using namespace ablate::bench::run;
using namespace ablate::bench::experiments;
using ablate::bench::testing::CommandTest;

namespace {
const char* kFamilies[] = {"defaults",          "cross_transfer", "batch_sweep", "lr_sweep", "length_sweep", "tuned",
                           "libraries_threads", "resources",      "strategies", "framework_math"};
}

class Paper : public CommandTest {};

TEST_F(Paper, ListNamesEveryFamily) {
  auto o = ablate("paper --list");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  for (const char* f : kFamilies) EXPECT_HAS(o.out, f);
  EXPECT_EQ(paper_families().size(), std::size(kFamilies));
  auto bad = ablate("paper everything --out " + (dir_ / "x.jsonl").string());
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_HAS(bad.err, "everything");
}

TEST(PaperPlan, FamiliesVaryWhatTheyName) {
  PaperOptions o;
  o.scale = 0.5;
  auto cross = plan_family("cross_transfer", o);
  ASSERT_EQ(cross.size(), 4u) << "one sweep per model";
  EXPECT_EQ(expand(cross[1]).size(), 4u) << "4 presets on torch's model";
  EXPECT_EQ(cross[1].base.at("model"), "torch-mnist");
  EXPECT_NE(cross[1].base.at("transform").find("pad:2"), std::string::npos) << "torch's model gets torch's 28->32 padding";
  auto lr = plan_family("lr_sweep", o);
  ASSERT_EQ(lr.size(), 4u);
  EXPECT_EQ(lr[0].base.at("framework"), "caffe");
  EXPECT_EQ(lr[0].factors[0].values, (std::vector<std::string>{"0.001", "0.01", "0.1"})) << "caffe's base_lr 0.01";
  auto length = plan_family("length_sweep", o);
  EXPECT_EQ(length[0].factors[0].values, (std::vector<std::string>{"0.25", "0.5", "1"}));
  EXPECT_FALSE(length[0].base.count("scale"));
  auto batch = plan_family("batch_sweep", o);
  EXPECT_EQ(batch[0].factors[0].values, (std::vector<std::string>{"16", "64", "256"})) << "caffe's batch 64";
  auto strategies = plan_family("strategies", o);
  EXPECT_EQ(strategies[3].factors[0].values.size(), 3u);
  auto math = plan_family("framework_math", o);  // caffe, torch, tensorflow, theano: own lowering, then ablate's fastest
  ASSERT_EQ(math.size(), 4u);
  EXPECT_EQ(math[0].factors[0].key, "conv-lowering");
  EXPECT_EQ(math[0].factors[0].values, (std::vector<std::string>{"per_image_gemm", "omp_per_image"}));
  EXPECT_EQ(math[2].factors[0].values, (std::vector<std::string>{"eigen_spatial", "omp_per_image"}));
  o.limit = 1;
  EXPECT_EQ(expand(plan_family("tuned", o)[0]).size(), 1u);
}

TEST_F(Paper, EveryFamilyRunsAtScaleOnePercentOnSyntheticData) {
  for (const char* f : kFamilies) {
    SCOPED_TRACE(f);
    const auto results = (dir_ / (std::string(f) + ".jsonl")).string();
    const std::string family = f;
    // Small variants: caffe alone (with torch for the transfer, TF for the defaults), the first
    // two values of each factor (all three strategies), at most 5 iterations per run.
    const std::string frameworks = family == "cross_transfer"                              ? "caffe,torch"
                                   : family == "defaults" || family == "framework_math" ? "caffe,tensorflow"
                                                                                           : "caffe";
    auto o = ablate("paper " + family + " --dataset synthetic --scale 0.01 --frameworks " + frameworks +
                    (family == "strategies" ? "" : " --limit 2") + " --max-iterations 5 --test-iterations 1 --threads 1 --out " + results);
    ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
    EXPECT_HAS(o.out, std::string("paper ") + f + " done");
    ResultsFile r = read_results(results);
    EXPECT_TRUE(r.damaged.empty());
    EXPECT_FALSE(r.records.empty()) << o.out;
    for (const auto& rec : r.records) {
      EXPECT_EQ(text_of(field(rec, "config.dataset")), "synthetic");
      EXPECT_EQ(text_of(field(rec, "sweep.label")).rfind(std::string("paper ") + f, 0), 0u);
    }
    if (family == "strategies") {
      EXPECT_HAS(o.out, "strategy=static");
    }
    if (family == "framework_math") {  // TF's own lowering keeps its preset's intra_inter threading
      int eigen_spatial = 0, fastest = 0;
      for (const auto& rec : r.records) {
        const std::string lowering = text_of(field(rec, "config.conv_lowering"));
        if (lowering == "eigen_spatial") eigen_spatial += text_of(field(rec, "config.threading")) == "intra_inter";
        fastest += lowering == "omp_per_image";
      }
      EXPECT_EQ(eigen_spatial, 1);
      EXPECT_EQ(fastest, 2);
    }
  }
}
