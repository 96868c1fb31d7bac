// The run switches of a step-by-step check against a real framework:
// --snapshot-initial writes the weights before step 1 (resuming from it repeats the run bit for
// bit), --no-random switches shuffling, dropout and random transforms off, --curve-every sets
// how often the curve records the loss; each is recorded, and a bad combination is refused.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "bench/run/run_config.h"
#include "command_runner.h"
#include "graph/checkpoint_file.h"
#include "tiny_run.h"

namespace ablate::bench::run {
namespace {

using testing::CommandTest;

class StepCheckFlags : public CommandTest {
 protected:
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // A tiny model with a dropout layer keeping `keep`.
  std::string dropout_model(const std::string& keep) const {
    const std::string file = path("dropout-" + keep + ".model");
    std::ofstream(file) << "model tinydrop\ninput 1 28 28\nclasses 10\n"
                           "layer c1 convolution outputs=4 kernel=5\n"
                           "layer p1 pooling mode=max kernel=4 stride=4\n"
                           "layer fc1 inner_product outputs=16\n"
                           "layer d1 dropout keep=" << keep << "\n"
                           "layer fc2 inner_product outputs=10\n"
                           "layer loss softmax_loss\n";
    return file;
  }

  // Runs `ablate run --framework F` on synthetic data and returns its record.
  nlohmann::json run_record(const std::string& framework, const std::string& flags) {
    const std::string out = path("r.jsonl");
    std::filesystem::remove(out);
    auto o = ablate("run --framework " + framework + " --dataset synthetic --backend reference --threads 1 --iterations 6 "
                    "--batch 8 --test-batch 50 --test-iterations 1 --quiet --out " + out + " " + flags);
    EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
    std::ifstream in(out);
    std::string line;
    std::getline(in, line);
    return line.empty() ? nlohmann::json::object() : nlohmann::json::parse(line);
  }
  nlohmann::json run_record(const std::string& flags) { return run_record("tensorflow", flags); }

  static std::vector<double> losses(const nlohmann::json& record) {
    std::vector<double> v;
    for (const auto& p : record["curve"]) v.push_back(p["loss"].get<double>());
    return v;
  }
};

TEST_F(StepCheckFlags, ResumingFromTheInitialSnapshotRepeatsTheRunBitForBit) {
  const std::string w0 = path("w0.ckpt");
  const std::string model = tiny::tiny_model_path();
  nlohmann::json fresh = run_record("--model " + model + " --curve-every 1 --snapshot-initial " + w0);
  const graph::Checkpoint initial = graph::read_checkpoint(w0);
  EXPECT_EQ(initial.meta("iteration"), "0");
  EXPECT_EQ(initial.meta("curve"), "");
  nlohmann::json resumed = run_record("--model " + model + " --curve-every 1 --resume " + w0);
  ASSERT_EQ(losses(fresh).size(), 6u);
  EXPECT_EQ(losses(fresh), losses(resumed));  // the same state before step 1: the same six losses, every bit
  EXPECT_EQ(fresh["config"]["curve_every"], 1);
}

TEST_F(StepCheckFlags, TheInitialSnapshotHoldsTheWeightsBeforeTheFirstUpdate) {
  const std::string w0 = path("w0.ckpt"), w1 = path("w1.ckpt");
  run_record("--model " + tiny::tiny_model_path() + " --snapshot-initial " + w0 + " --snapshot-every 1 --snapshot " + w1 +
             " --iterations 1");
  const graph::Checkpoint before = graph::read_checkpoint(w0), after = graph::read_checkpoint(w1);
  const kernels::Tensor &a = before.tensor("fc.weight"), &b = after.tensor("fc.weight");
  ASSERT_EQ(a.numel(), b.numel());
  bool moved = false;
  for (std::int64_t i = 0; i < a.numel(); ++i) moved = moved || a.data<float>()[i] != b.data<float>()[i];
  EXPECT_TRUE(moved) << "the initial snapshot holds the weights after step 1";
}

TEST_F(StepCheckFlags, InitialSnapshotWithResumeIsRefused) {
  auto o = ablate("run --framework caffe --dataset synthetic --iterations 2 --snapshot-initial " + path("a.ckpt") +
                  " --resume " + path("b.ckpt"));
  EXPECT_NE(o.exit_code, 0);
  EXPECT_HAS(o.err, "--snapshot-initial " + path("a.ckpt") + " with --resume " + path("b.ckpt"));
}

TEST_F(StepCheckFlags, CurveEveryZeroIsRefused) {
  auto o = ablate("run --framework caffe --dataset synthetic --iterations 2 --curve-every 0");
  EXPECT_NE(o.exit_code, 0);
  EXPECT_HAS(o.err, "--curve-every 0");
}

TEST_F(StepCheckFlags, NoRandomSwitchesDropoutOff) {
  // Caffe's recipe does not shuffle: the dropout alone differs. With --no-random a dropout of
  // keep 0.5 trains as keep 1 does; without, it does not.
  const auto off = losses(run_record("caffe", "--model " + dropout_model("0.5") + " --no-random --curve-every 1"));
  const auto keep_all = losses(run_record("caffe", "--model " + dropout_model("1") + " --curve-every 1"));
  const auto dropped = losses(run_record("caffe", "--model " + dropout_model("0.5") + " --curve-every 1"));
  ASSERT_EQ(off.size(), 6u);
  EXPECT_EQ(off, keep_all);
  EXPECT_NE(off, dropped);
}

TEST_F(StepCheckFlags, NoRandomStopsShufflingAndIsRecorded) {
  // TensorFlow's preset shuffles; --no-random trains as the same preset with `shuffle false`.
  std::ifstream in(std::string(ABLATE_SOURCE_DIR) + "/models/presets/tensorflow-mnist.preset");
  std::stringstream text;
  text << in.rdbuf();
  std::string preset = text.str();
  const auto at = preset.find("shuffle true");
  ASSERT_NE(at, std::string::npos);
  preset.replace(at, 12, "shuffle false");
  std::ofstream(path("ordered.preset")) << preset;
  const std::string model = "--model " + tiny::tiny_model_path() + " --curve-every 1";
  const nlohmann::json no_random = run_record(model + " --no-random");
  EXPECT_EQ(no_random["config"]["no_random"], true);
  EXPECT_EQ(no_random["config"]["shuffle"], false);
  EXPECT_EQ(losses(no_random), losses(run_record(model + " --preset " + path("ordered.preset"))));
  EXPECT_NE(losses(no_random), losses(run_record(model)));  // shuffled batches
  EXPECT_EQ(run_record(model)["config"]["no_random"], false);
}

Flags flags_of(const std::vector<std::pair<std::string, std::string>>& items) {
  Flags f;
  for (const auto& [k, v] : items) f.set(k, v);
  return f;
}

TEST_F(StepCheckFlags, NoRandomReplacesARandomTrainingTransformByTheTestOne) {
  RunConfig random = resolve_run_config(flags_of({{"framework", "tensorflow"}, {"dataset", "synthetic-cifar10"}}));
  ASSERT_NE(random.transform.find("random_crop"), std::string::npos);
  RunConfig fixed = resolve_run_config(
      flags_of({{"framework", "tensorflow"}, {"dataset", "synthetic-cifar10"}, {"no-random", "true"}}));
  EXPECT_EQ(fixed.transform, random.test_transform);
  EXPECT_FALSE(fixed.shuffle);
  EXPECT_TRUE(fixed.no_random);
}

TEST_F(StepCheckFlags, NoRandomWithoutADeterministicTestTransformIsRefused) {
  for (const char* test_transform : {"", "random_flip+scale:1/255"}) {
    Flags f = flags_of({{"framework", "caffe"}, {"dataset", "synthetic"}, {"no-random", "true"},
                        {"transform", "random_flip+scale:1/255"}});
    if (*test_transform) f.set("test-transform", test_transform);
    try {
      resolve_run_config(f);
      ADD_FAILURE() << "accepted a random training transform with test transform '" << test_transform << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_HAS(std::string(e.what()), "--no-random: the training transform 'random_flip+scale:1/255' (--transform)");
      EXPECT_HAS(std::string(e.what()), "no deterministic test transform");
    }
  }
}

}  // namespace
}  // namespace ablate::bench::run
