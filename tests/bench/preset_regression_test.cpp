// The eight presets keep their numbers: each preset (caffe, torch, tensorflow, theano on the
// MNIST and CIFAR-10 families) trains 3 steps on the reference backend in f64 at a fixed seed
// on synthetic data, and its loss curve, test loss and accuracy must equal the golden values in
// tests/bench/golden/preset_losses.json within 1e-8 relative: the file holds 9 significant
// digits (what records held before), and f64 on plain loops moves only the last bits from host to
// host. The golden values were written by the binary of revision 4052cf0, before the architecture issue (14) rebuilt layers, strategies, the
// command line and the records, so this test is the proof that the rebuild changed no number.
// A change that is meant to move these numbers regenerates the file with
//   ABLATE_WRITE_GOLDEN=tests/bench/golden/preset_losses.json build/test_bench --gtest_filter='PresetRegression*'
// and says why in its commit.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "command_runner.h"

namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

const std::vector<std::string> kFrameworks = {"caffe", "torch", "tensorflow", "theano"};
const std::vector<std::string> kDatasets = {"synthetic", "synthetic-cifar10"};

// The run flags of every preset: short, exact, and small enough for the suite. The synthetic
// training set has 6,000 images, fewer than TensorFlow's and Theano's held-out splits: 1,000.
std::string preset_flags(const std::string& framework, const std::string& dataset) {
  return "run --framework " + framework + " --dataset " + dataset +
         " --backend reference --precision f64 --threads 1 --iterations 3 --batch 4 --test-iterations 1"
         " --test-batch 10 --validation-count 1000 --seed 7 --quiet";
}

// What must not move: the losses of the curve, the test loss, the accuracy.
Json numbers_of(const Json& record) {
  Json out;
  for (const Json& point : record.at("curve")) out["curve"].push_back({point.at("iteration"), point.at("loss")});
  out["test_loss"] = record.at("metrics").at("test_loss");
  out["accuracy"] = record.at("metrics").at("accuracy");
  out["status"] = record.at("status");
  return out;
}

bool close(double expected, double actual) {
  return std::abs(actual - expected) <= 1e-8 * std::max(1.0, std::abs(expected));
}

class PresetRegression : public ablate::bench::testing::CommandTest {};

TEST_F(PresetRegression, EveryPresetGivesItsGoldenLosses) {
  const fs::path golden_path = fs::path(ABLATE_SOURCE_DIR) / "tests/bench/golden/preset_losses.json";
  Json measured;
  for (const std::string& framework : kFrameworks)
    for (const std::string& dataset : kDatasets) {
      const std::string name = framework + "/" + dataset;
      const fs::path out = dir_ / (framework + "-" + dataset + ".jsonl");
      const auto o = ablate(preset_flags(framework, dataset) + " --out " + out.string());
      ASSERT_EQ(o.exit_code, 0) << name << ":\n" << o.err;
      measured[name] = numbers_of(Json::parse(ablate::bench::testing::slurp(out)));
    }
  if (const char* write = std::getenv("ABLATE_WRITE_GOLDEN")) {
    std::ofstream(write) << measured.dump(1) << "\n";
    GTEST_SKIP() << "golden values written to " << write;
  }
  std::ifstream in(golden_path);
  ASSERT_TRUE(in) << "missing " << golden_path;
  const Json golden = Json::parse(in);
  ASSERT_EQ(golden.size(), kFrameworks.size() * kDatasets.size());
  for (const auto& [name, expected] : golden.items()) {
    ASSERT_TRUE(measured.contains(name)) << name;
    const Json& actual = measured[name];
    EXPECT_EQ(actual["status"], expected["status"]) << name;
    ASSERT_EQ(actual["curve"].size(), expected["curve"].size()) << name;
    for (std::size_t i = 0; i < expected["curve"].size(); ++i) {
      EXPECT_EQ(actual["curve"][i][0], expected["curve"][i][0]) << name << " curve point " << i;
      EXPECT_TRUE(close(expected["curve"][i][1], actual["curve"][i][1]))
          << name << " loss at iteration " << expected["curve"][i][0] << ": golden " << expected["curve"][i][1]
          << ", now " << actual["curve"][i][1];
    }
    EXPECT_TRUE(close(expected["test_loss"], actual["test_loss"]))
        << name << " test loss: golden " << expected["test_loss"] << ", now " << actual["test_loss"];
    EXPECT_TRUE(close(expected["accuracy"], actual["accuracy"])) << name << " accuracy";
  }
}

}  // namespace
