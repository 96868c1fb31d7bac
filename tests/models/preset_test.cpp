// Presets: Caffe's MNIST recipe, lookup by name or path, and errors naming file:line.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "models/preset.h"
#include "error_expectations.h"

namespace ablate::models {
namespace {

using testing::expect_error;

TEST(Preset, CaffeMnistIsLenetSolver) {
  const Preset p = load_preset(preset_name("caffe", "mnist"));
  EXPECT_EQ(p.source, "<presets>/caffe-mnist.preset");
  EXPECT_EQ(p.get("framework"), "caffe");
  EXPECT_EQ(p.get("dataset_family"), "mnist");
  EXPECT_EQ(p.get("model"), "lenet");
  EXPECT_EQ(p.get("strategy"), "layerwise");
  EXPECT_EQ(p.get("backend"), "openblas");
  EXPECT_EQ(p.get("threads"), "all");
  EXPECT_EQ(p.get("precision"), "f32");
  EXPECT_EQ(p.get("optimizer"), "caffe_sgd");
  EXPECT_DOUBLE_EQ(p.get_double("base_lr"), 0.01);
  EXPECT_EQ(p.get("lr_policy"), "inv");
  EXPECT_DOUBLE_EQ(p.get_double("gamma"), 0.0001);
  EXPECT_DOUBLE_EQ(p.get_double("power"), 0.75);
  EXPECT_DOUBLE_EQ(p.get_double("momentum"), 0.9);
  EXPECT_DOUBLE_EQ(p.get_double("weight_decay"), 0.0005);
  EXPECT_EQ(p.get_int("batch"), 64);
  EXPECT_EQ(p.get_int("iterations"), 10000);
  EXPECT_EQ(p.get_int("test_interval"), 500);
  EXPECT_EQ(p.get_int("test_batch"), 100);
  EXPECT_EQ(p.get_int("test_iterations"), 100);
  EXPECT_EQ(p.get("transform"), "scale:0.00390625");
  EXPECT_EQ(p.get("shuffle"), "false");
  EXPECT_EQ(p.get_int("seed"), 1);
  EXPECT_FALSE(p.has("epochs"));
  EXPECT_GT(p.lines.at("base_lr"), 0);
}

TEST(Preset, FilePathAndNameWithExtension) {
  const std::string path = std::string(ABLATE_SOURCE_DIR) + "/models/presets/caffe-mnist.preset";
  const Preset from_file = load_preset(path);
  EXPECT_EQ(from_file.source, path);
  EXPECT_EQ(from_file.values, load_preset("caffe-mnist").values);
  EXPECT_EQ(load_preset("caffe-mnist.preset").get("model"), "lenet");
  expect_error([] { load_preset("caffe-imagenet"); }, {"caffe-imagenet", "presets", "caffe-mnist"});
}

TEST(Preset, ValuesRunToTheEndOfTheLineOrComment) {
  const Preset p = parse_preset(
      "# header\n"
      "\n"
      "notes two words here   # trailing comment\n"
      "threads 4\n"
      "stepvalues 5000, 8000\n",
      "x.preset");
  EXPECT_EQ(p.get("notes"), "two words here");
  EXPECT_EQ(p.get_int("threads"), 4);
  EXPECT_EQ(p.get("stepvalues"), "5000, 8000");
  EXPECT_EQ(p.lines.at("threads"), 4);
}

TEST(Preset, KeysAreTheDocumentedOnes) {
  // The key column of the table under "## The preset format" in models/README.md.
  std::ifstream readme(std::string(ABLATE_SOURCE_DIR) + "/models/README.md");
  ASSERT_TRUE(readme) << "models/README.md not found";
  std::vector<std::string> documented;
  bool in_section = false;
  for (std::string line; std::getline(readme, line);) {
    if (line.rfind("## ", 0) == 0) in_section = line == "## The preset format";
    if (!in_section || line.rfind("| `", 0) != 0) continue;
    const std::string first_column = line.substr(1, line.find('|', 1) - 1);
    for (std::size_t at = first_column.find('`'); at != std::string::npos; at = first_column.find('`', at)) {
      const std::size_t end = first_column.find('`', at + 1);
      documented.push_back(first_column.substr(at + 1, end - at - 1));
      at = end + 1;
    }
  }
  std::vector<std::string> keys = preset_keys();
  std::sort(keys.begin(), keys.end());
  std::sort(documented.begin(), documented.end());
  EXPECT_EQ(keys, documented) << "models/README.md's preset table and preset_keys() differ";
  EXPECT_GT(keys.size(), 27u);
  EXPECT_EQ(preset_name("tensorflow", "cifar10"), "tensorflow-cifar10");
}

TEST(Preset, ErrorsNameFileAndLine) {
  expect_error([] { parse_preset("batch 64\nlearning_rate 0.1\n", "p.preset"); },
               {"p.preset:2:", "unknown key 'learning_rate'", "base_lr", "lr_policy"});
  expect_error([] { parse_preset("batch 64\n# c\nbatch 32\n", "p.preset"); },
               {"p.preset:3:", "'batch' is given twice", "line 1"});
  expect_error([] { parse_preset("batch\n", "p.preset"); }, {"p.preset:1:", "'batch' has no value"});
  expect_error([] { parse_preset("model lenet\nbatch 6x4\n", "p.preset"); },
               {"p.preset:2:", "batch", "'6x4'", "not an integer"});
  expect_error([] { parse_preset("batch 0\n", "p.preset"); }, {"p.preset:1:", "positive integer", "'0'"});
  expect_error([] { parse_preset("base_lr fast\n", "p.preset"); }, {"p.preset:1:", "base_lr", "not a number"});
  expect_error([] { parse_preset("optimizer sgd\n", "p.preset"); },
               {"p.preset:1:", "optimizer", "caffe_sgd|torch_sgd|adam|adamw|gd", "'sgd'"});
  expect_error([] { parse_preset("threads some\n", "p.preset"); }, {"p.preset:1:", "threads", "'all'"});
  expect_error([] { parse_preset("shuffle yes\n", "p.preset"); }, {"p.preset:1:", "true or false"});
  expect_error([] { parse_preset("lr_policy poly\n", "p.preset"); }, {"p.preset:1:", "inv", "'poly'"});
  expect_error([] { parse_preset("stepvalues 5000,x\n", "p.preset"); }, {"p.preset:1:", "stepvalues", "'x'"});
  expect_error([] { parse_preset("model two words\n", "p.preset"); }, {"p.preset:1:", "model", "'two words'"});
}

TEST(Preset, GettersNameMissingAndMalformedValues) {
  const Preset p = parse_preset("notes hello\nthreads all\n", "g.preset");
  expect_error([&] { p.get("batch"); }, {"g.preset", "'batch'"});
  expect_error([&] { p.get_int("threads"); }, {"g.preset:2:", "threads", "'all'"});
  expect_error([&] { p.get_double("notes"); }, {"g.preset:1:", "notes", "'hello'"});
}

}  // namespace
}  // namespace ablate::models
