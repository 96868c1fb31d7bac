// End-to-end tests of the `ablate` command: a short run writes a complete result record,
// and every bad input gives a clear error, a non-zero exit, and loses nothing already written.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "command_runner.h"
#include "models/flops.h"
#include "models/model_spec.h"

namespace fs = std::filesystem;

namespace {

using ablate::bench::testing::slurp;

class Cli : public ablate::bench::testing::CommandTest {
 protected:
  // A short, fast run on generated data.
  std::string quick() { return "run --dataset synthetic --backend reference --iterations 30 --batch 8 --test-batch 50 --test-iterations 2 "; }
};

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE((haystack).find(needle), std::string::npos) << "missing '" << (needle) << "' in:\n" << (haystack)

}  // namespace

TEST_F(Cli, HelpListsEveryCommandAndRunOptions) {
  auto top = ablate("--help");
  EXPECT_EQ(top.exit_code, 0);
  EXPECT_CONTAINS(top.out, "run");
  EXPECT_CONTAINS(top.out, "bench");
  auto run = ablate("run --help");
  EXPECT_EQ(run.exit_code, 0);
  for (const char* opt : {"--framework", "--dataset", "--data", "--backend", "--threads", "--iterations", "--batch",
                          "--lr", "--seed", "--out"})
    EXPECT_CONTAINS(run.out, opt);
  EXPECT_EQ(ablate("bench --help").exit_code, 0);
}

TEST_F(Cli, ShortRunAppendsACompleteRecord) {
  fs::path results = dir_ / "results.jsonl";
  { std::ofstream(results) << "{\"earlier\":1}\n"; }
  auto o = ablate(quick() + "--test-interval 20 --out " + results.string());
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_CONTAINS(o.out, "test accuracy");
  EXPECT_CONTAINS(o.out, "training time");
  std::string text = slurp(results);
  ASSERT_EQ(text.rfind("{\"earlier\":1}\n", 0), 0u) << "earlier content lost";
  std::string record = text.substr(std::string("{\"earlier\":1}\n").size());
  EXPECT_EQ(std::count(record.begin(), record.end(), '\n'), 1);
  for (const char* key : {"\"config\"", "\"environment\"", "\"metrics\"", "\"curve\"", "\"train_time_s\"",
                          "\"test_time_s\"", "\"accuracy\"", "\"images_per_s\"", "\"peak_rss_bytes\"", "\"cpu_util\"",
                          "\"env.OPENBLAS_CORETYPE\"", "\"compiled_for\"", "\"git_revision\"", "\"test_accuracy\"", "\"strategy\":\"layerwise\""})
    EXPECT_CONTAINS(record, key);
  // A loss point at least every 10 iterations: 1, 10, 20, 30.
  std::size_t points = 0;
  for (std::size_t p = record.find("\"iteration\":"); p != std::string::npos; p = record.find("\"iteration\":", p + 1))
    ++points;
  EXPECT_GE(points, 4u);
}

TEST_F(Cli, NegativeOrZeroBatchIsRefused) {
  for (const char* bad : {"-3", "0"}) {
    auto o = ablate(quick() + "--batch " + bad);
    EXPECT_NE(o.exit_code, 0);
    EXPECT_CONTAINS(o.err, "error:");
    EXPECT_CONTAINS(o.err, "batch");
    EXPECT_CONTAINS(o.err, bad);
  }
}

TEST_F(Cli, UnknownBackendListsTheKnownOnes) {
  auto o = ablate(quick() + "--backend cublas9");
  EXPECT_NE(o.exit_code, 0);
  EXPECT_CONTAINS(o.err, "cublas9");
  for (const char* b : {"reference", "eigen", "openblas", "onednn"}) EXPECT_CONTAINS(o.err, b);
}

TEST_F(Cli, UnknownOptionFrameworkAndDatasetAreNamed) {
  auto o = ablate(quick() + "--itertions 5");
  EXPECT_NE(o.exit_code, 0);
  EXPECT_CONTAINS(o.err, "--itertions");
  auto d = ablate("run --dataset imagenet");
  EXPECT_NE(d.exit_code, 0);
  EXPECT_CONTAINS(d.err, "imagenet");
  auto f = ablate("run --framework mxnet --dataset synthetic");
  EXPECT_NE(f.exit_code, 0);
  EXPECT_CONTAINS(f.err, "mxnet");
}

TEST_F(Cli, MissingDataDirectoryIsNamed) {
  auto o = ablate("run --dataset mnist --data " + (dir_ / "no-such-dir").string());
  EXPECT_NE(o.exit_code, 0);
  EXPECT_CONTAINS(o.err, "no-such-dir");
}

TEST_F(Cli, TruncatedDataFileIsNamed) {
  fs::path data = dir_ / "mnist";
  fs::create_directories(data);
  // A label file header promising 60000 labels, followed by only 3.
  std::ofstream(data / "train-labels-idx1-ubyte", std::ios::binary)
      .write("\x00\x00\x08\x01\x00\x00\xea\x60\x01\x02\x03", 11);
  std::ofstream(data / "train-images-idx3-ubyte", std::ios::binary)
      .write("\x00\x00\x08\x03\x00\x00\xea\x60\x00\x00\x00\x1c\x00\x00\x00\x1c\x00", 17);
  // Well-formed test files of one image, so the training files are the ones at fault.
  std::string image(16 + 28 * 28, '\0');
  image.replace(0, 16, std::string("\x00\x00\x08\x03\x00\x00\x00\x01\x00\x00\x00\x1c\x00\x00\x00\x1c", 16));
  std::ofstream(data / "t10k-images-idx3-ubyte", std::ios::binary) << image;
  std::ofstream(data / "t10k-labels-idx1-ubyte", std::ios::binary)
      .write("\x00\x00\x08\x01\x00\x00\x00\x01\x03", 9);
  auto o = ablate("run --dataset mnist --data " + data.string());
  EXPECT_NE(o.exit_code, 0);
  EXPECT_CONTAINS(o.err, "train-");
  EXPECT_CONTAINS(o.err, "truncated");
}

TEST_F(Cli, UnknownLayerInAModelFileNamesFileAndLine) {
  fs::path model = dir_ / "bad.model";
  std::ofstream(model) << "model bad\ninput 1 28 28\nclasses 10\nlayer c1 convolution outputs=4 kernel=5\n"
                          "layer x1 capsule\nlayer loss softmax_loss\n";
  auto o = ablate(quick() + "--model " + model.string());
  EXPECT_NE(o.exit_code, 0);
  EXPECT_CONTAINS(o.err, "bad.model:5");
  EXPECT_CONTAINS(o.err, "capsule");
}

TEST_F(Cli, AResultsFileInAMissingFolderGetsItsFolder) {
  auto o = ablate(quick() + "--iterations 2 --out " + (dir_ / "new" / "dir" / "r.jsonl").string());
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_CONTAINS(slurp(dir_ / "new" / "dir" / "r.jsonl"), "\"status\":\"completed\"");
}

TEST_F(Cli, UnwritableResultsFileFailsBeforeTraining) {
  std::ofstream(dir_ / "a-file") << "not a folder";  // so a-file/r.jsonl can never be made
  auto o = ablate(quick() + "--out " + (dir_ / "a-file" / "r.jsonl").string());
  EXPECT_NE(o.exit_code, 0);
  EXPECT_CONTAINS(o.err, "r.jsonl");
  EXPECT_EQ(o.out.find("iter "), std::string::npos) << "training started before the results file was checked";
}

TEST_F(Cli, DivergingRunIsRecordedAsDivergedAndExitsNonZero) {
  fs::path results = dir_ / "results.jsonl";
  auto o = ablate(quick() + "--lr 1e30 --out " + results.string());
  EXPECT_NE(o.exit_code, 0);
  EXPECT_CONTAINS(o.err, "diverged");
  EXPECT_CONTAINS(slurp(results), "\"status\":\"diverged\"");
}

// A finite loss with an infinite gradient (graph/optim/gradient_check.h): ip1's weights are 0,
// so the logits are 0 whatever the input, but dW1 = (W2^T dy) x is about 1e10 x 1e32.
TEST_F(Cli, InfiniteGradientWithFiniteLossIsRecordedAsDivergedNamingTheTensor) {
  fs::path model = dir_ / "overflow.model";
  std::ofstream(model) << "model overflow\ninput 1 28 28\nclasses 10\n"
                          "layer ip1 inner_product outputs=4 weight_init=constant:0 bias_init=constant:0\n"
                          "layer ip2 inner_product outputs=10 weight_init=gaussian:1e10 bias_init=constant:0\n"
                          "layer loss softmax_loss\n";
  fs::path results = dir_ / "results.jsonl";
  const std::string run = quick() + "--model " + model.string() + " --transform scale:1e30 --out " + results.string();
  auto o = ablate(run);
  EXPECT_NE(o.exit_code, 0);
  EXPECT_CONTAINS(o.err, "diverged");
  EXPECT_CONTAINS(o.err, "gradient of ip1.weight is not finite at iteration 0");
  std::string record = slurp(results);
  EXPECT_CONTAINS(record, "\"status\":\"diverged\"");
  EXPECT_CONTAINS(record, "gradient of ip1.weight is not finite");
  EXPECT_CONTAINS(record, "\"check_gradients\":\"true\"");
  // Unchecked, the infinite update makes the next loss NaN: diverged by the loss instead.
  fs::remove(results);
  auto off = ablate(run + " --check-gradients off");
  EXPECT_NE(off.exit_code, 0);
  record = slurp(results);
  EXPECT_CONTAINS(record, "\"status\":\"diverged\"");
  EXPECT_CONTAINS(record, "loss is");
  EXPECT_CONTAINS(record, "\"check_gradients\":\"false\"");
  EXPECT_CONTAINS(ablate(quick() + "--check-gradients maybe").err, "--check-gradients maybe: expected on or off");
}

TEST_F(Cli, BenchMeasuresEveryRunnableBackendAndNamesTheFastest) {
  auto o = ablate("bench --batch 4 --threads 1 --repeats 1 --warmup 0 --iterations 1");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  for (const char* b : {"reference", "eigen", "openblas", "onednn", "fastest ablate", "OPENBLAS_CORETYPE"})
    EXPECT_CONTAINS(o.out, b);
  auto bad = ablate("bench --backends nope --repeats 1");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_CONTAINS(bad.err, "nope");
}

// --onednn-conv-layout sets the onednn row's layout, and is refused without an onednn row.
TEST_F(Cli, BenchRunsTheOnednnRowInTheGivenConvolutionLayout) {
  auto o = ablate("bench --batch 4 --backends onednn --threads 1 --repeats 1 --warmup 0 --iterations 1 --onednn-conv-layout nhwc");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_CONTAINS(o.out, "onednn convolution layout: nhwc");
  auto bad = ablate("bench --backends eigen --repeats 1 --onednn-conv-layout nhwc");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_CONTAINS(bad.err, "--onednn-conv-layout nhwc: an option of the onednn backend");
  EXPECT_CONTAINS(ablate("bench --backends onednn --repeats 1 --onednn-conv-layout sideways").err, "sideways");
}

// The peak share line: images/s x the model's FLOPs per training image / the probe's FLOP/s.
TEST_F(Cli, BenchGivesEachRowsShareOfTheProbesPeak) {
  auto o = ablate("bench --model lenet --batch 8 --backends eigen --threads 1 --repeats 1 --warmup 0 --iterations 2");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  double ips = 0, mflop = 0, gflops_1t = 0, share = 0;
  std::istringstream lines(o.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("share of the FMA probe's peak", 0) == 0) {
      ASSERT_EQ(std::sscanf(line.c_str(), "share of the FMA probe's peak (%lf MFLOP per training image; probe %*[^:]: %lf", &mflop,
                            &gflops_1t), 2) << line;
      std::string next;
      ASSERT_TRUE(std::getline(lines, next));
      ASSERT_EQ(std::sscanf(next.c_str(), "eigen %lf%%", &share), 1) << next;
    } else if (line.rfind("eigen", 0) == 0 && ips == 0) {
      ASSERT_EQ(std::sscanf(line.c_str(), "eigen %lf", &ips), 1) << line;
    }
  }
  const double expected_mflop = ablate::models::model_flops(ablate::models::load_model("lenet"), 8).training_step() / 8 / 1e6;
  EXPECT_NEAR(mflop, expected_mflop, 0.01) << o.out;
  ASSERT_GT(ips, 0) << o.out;
  ASSERT_GT(gflops_1t, 0) << o.out;
  EXPECT_NEAR(share, 100 * ips * mflop / (1000 * gflops_1t), 1.0) << o.out;
}

// bench/scripts/step_spans.py over a run's trace: the training steps' ops, test passes left out.
TEST_F(Cli, StepSpansAddsUpTheOpsOfTheTrainingSteps) {
  fs::path trace = dir_ / "trace.json";
  ASSERT_EQ(ablate(quick() + "--iterations 6 --profile " + trace.string()).exit_code, 0);
  const fs::path script = fs::path(ABLATE_SOURCE_DIR) / "bench/scripts/step_spans.py";
  const fs::path out = dir_ / "spans.txt";
  ASSERT_EQ(std::system(("/usr/bin/python3 " + script.string() + " " + trace.string() + " > " + out.string()).c_str()), 0);
  const std::string text = slurp(out);
  EXPECT_CONTAINS(text, "4 steps after step 2");  // steps 3..6
  EXPECT_CONTAINS(text, "conv2d_forward");
  EXPECT_CONTAINS(text, "conv2d_backward_weights");
  double cover = 0;
  const std::size_t at = text.find("ops cover ");
  ASSERT_NE(at, std::string::npos) << text;
  ASSERT_EQ(std::sscanf(text.c_str() + at, "ops cover %lf%%", &cover), 1) << text;
  EXPECT_GT(cover, 50.0) << "a reference LeNet step is almost all ops";
  EXPECT_LE(cover, 100.0) << "spans of one thread never add up beyond the step";
  EXPECT_NE(std::system(("/usr/bin/python3 " + script.string() + " " + trace.string() + " --skip 99 > /dev/null 2>&1").c_str()), 0)
      << "no step left to count is an error";
}

TEST_F(Cli, ProfileWritesAChromeTraceAndTheRecordCarriesOpsAndMfu) {
  fs::path trace = dir_ / "trace.json", results = dir_ / "results.jsonl";
  auto o = ablate(quick() + "--iterations 5 --profile " + trace.string() + " --out " + results.string());
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_CONTAINS(o.out, "slowest ops");
  EXPECT_CONTAINS(o.out, "MFU");
  const std::string json = slurp(trace);
  ASSERT_EQ(json.rfind("{\"displayTimeUnit\": \"ms\", \"traceEvents\": [", 0), 0u) << json.substr(0, 200);
  EXPECT_CONTAINS(json, "\"name\": \"step 5\", \"cat\": \"step\"");
  EXPECT_CONTAINS(json, "\"name\": \"conv2d_forward\", \"cat\": \"op\"");
  EXPECT_CONTAINS(json, "\"cat\": \"test\"");
  // conv2d_forward: 5 training steps, and the test pass of 2 batches.
  std::size_t convs = 0;
  for (std::size_t p = json.find("\"conv2d_forward\""); p != std::string::npos; p = json.find("\"conv2d_forward\"", p + 1))
    ++convs;
  EXPECT_EQ(convs, 2u * (5 + 2)) << "lenet has two convolutions";
  const std::string record = slurp(results);
  EXPECT_CONTAINS(record, "\"profile\":[{\"op\":");
  EXPECT_CONTAINS(record, "\"mfu\":");
  EXPECT_CONTAINS(record, "\"memory_estimate_bytes\":");
  EXPECT_EQ(record.find("\"mfu\":0,"), std::string::npos) << "MFU should be measured";
  EXPECT_CONTAINS(o.out, "spans cover");
  EXPECT_CONTAINS(json, "\"name\": \"next batch\", \"cat\": \"data\"");
  EXPECT_CONTAINS(record, "\"profile_step_coverage\":");
}

TEST_F(Cli, ABatchBeyondTheMemoryIsRefusedAtOnceWithTheEstimate) {
  auto o = ablate("run --dataset synthetic --backend reference --iterations 1 --batch 4000000");
  EXPECT_NE(o.exit_code, 0);
  EXPECT_CONTAINS(o.err, "batch 4000000");
  EXPECT_CONTAINS(o.err, "GiB");
  EXPECT_CONTAINS(o.err, "available");
}

TEST_F(Cli, DeterministicRunsRepeatBitForBitAndRecordTheBackendsChoices) {
  fs::path a = dir_ / "a.jsonl", b = dir_ / "b.jsonl";
  const std::string run = "run --dataset synthetic --backend onednn --threads 2 --iterations 20 --batch 16 "
                          "--test-batch 50 --test-iterations 1 --deterministic --quiet --out ";
  ASSERT_EQ(ablate(run + a.string()).exit_code, 0);
  ASSERT_EQ(ablate(run + b.string()).exit_code, 0);
  auto curve_of = [](const std::string& record) { return record.substr(record.find("\"curve\"")); };
  const std::string ra = slurp(a), rb = slurp(b);
  // The curve (losses at 1, 10, 20) and the final accuracy are the same to the last digit;
  // elapsed times differ, so compare the losses only.
  auto losses = [](const std::string& curve) {
    std::string out;
    for (std::size_t p = curve.find("\"loss\":"); p != std::string::npos; p = curve.find("\"loss\":", p + 1))
      out += curve.substr(p, curve.find_first_of(",}", p) - p) + " ";
    return out;
  };
  EXPECT_EQ(losses(curve_of(ra)), losses(curve_of(rb)));
  EXPECT_FALSE(losses(curve_of(ra)).empty());
  EXPECT_CONTAINS(ra, "\"deterministic\":\"true\"");
  EXPECT_CONTAINS(ra, "\"backend.conv_layout_setting\":\"plain\"");
  EXPECT_CONTAINS(ra, "\"backend.conv_mode\":");
}

// A run records the math factors it was given and what the backend resolved: the lowering, the
// threading, each pool's size, eigen_spatial's NHWC layout and the reorders it made, and the
// max-pool gradient.
TEST_F(Cli, RunRecordsTheConvolutionLoweringThreadingPoolsAndReorders) {
  fs::path out = dir_ / "math.jsonl";
  ASSERT_EQ(ablate("run --framework tensorflow --dataset synthetic --backend eigen --conv-lowering eigen_spatial "
                   "--threads 2 --pool-gradient all --iterations 2 --batch 4 --test-batch 50 --test-iterations 1 "
                   "--quiet --out " + out.string())
                .exit_code,
            0);
  const std::string r = slurp(out);
  EXPECT_CONTAINS(r, "\"conv_lowering\":\"eigen_spatial\"");
  EXPECT_CONTAINS(r, "\"pool_gradient\":\"all\"");
  EXPECT_CONTAINS(r, "\"backend.conv_lowering\":\"eigen_spatial\"");
  EXPECT_CONTAINS(r, "\"backend.threading\":\"intra_inter\"");
  EXPECT_CONTAINS(r, "\"backend.pool.intra_op\":\"2\"");
  EXPECT_CONTAINS(r, "\"backend.layout\":\"nhwc\"");
  EXPECT_CONTAINS(r, "\"backend.reorders.activations\":");
  EXPECT_EQ(r.find("\"backend.reorders.activations\":\"0\""), std::string::npos) << "convolutions ran NHWC";
}
