// The eight framework defaults (reference/frameworks.md) as embedded presets: each names a
// known framework, family and zoo model that fits the family, holds the study's numbers, and
// comments every value with where it comes from.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>

#include "models/embedded_files.h"
#include "models/model_spec.h"
#include "models/preset.h"
#include "models/source_resolver.h"

namespace ablate::models {
namespace {

const std::vector<std::string> kFrameworks = {"caffe", "tensorflow", "torch", "theano"};
// Recipes beside the study's frameworks: He et al. 2016's (ResNet-20 and its MNIST-family carry-over)
// and a Vision Transformer's (vit-mnist: AdamW, warm-up and cosine decay).
const std::vector<std::string> kOtherRecipes = {"he", "vit"};
const std::vector<std::string> kFamilies = {"mnist", "cifar10"};

TEST(Presets, AllEightDefaultsExistAndNameAKnownFrameworkFamilyAndModel) {
  std::set<std::string> names;
  for (const auto& name : embedded_names("presets", ".preset")) names.insert(name);
  for (const auto& framework : kFrameworks)
    for (const auto& family : kFamilies) EXPECT_EQ(names.count(preset_name(framework, family)), 1u) << framework << " " << family;

  for (const auto& name : names) {
    SCOPED_TRACE(name);
    const Preset p = load_preset(name);
    const std::string framework = p.get("framework"), family = p.get("dataset_family");
    EXPECT_TRUE(std::find(kFrameworks.begin(), kFrameworks.end(), framework) != kFrameworks.end() ||
                std::find(kOtherRecipes.begin(), kOtherRecipes.end(), framework) != kOtherRecipes.end());
    EXPECT_NE(std::find(kFamilies.begin(), kFamilies.end(), family), kFamilies.end());
    EXPECT_EQ(preset_name(framework, family), name);
    const ModelSpec model = load_model(p.get("model"));  // strict: the zoo holds every model named
    EXPECT_EQ(model.name, p.get("model"));
    ASSERT_EQ(model.input_shape.size(), 3u);
    EXPECT_EQ(model.input_shape[0], family == "mnist" ? 1 : 3) << "input channels of " << model.name;
    EXPECT_EQ(model.classes, 10);
    // One training length, in iterations or in epochs.
    EXPECT_NE(p.has("iterations"), p.has("epochs"));
    EXPECT_GT(p.has("iterations") ? p.get_double("iterations") : p.get_double("epochs"), 0);
    const double target = p.get_double("target_accuracy");
    EXPECT_GT(target, 0);
    EXPECT_LE(target, 1);
    // Each policy carries its parameters.
    const std::string policy = p.get("lr_policy");
    if (policy == "exp_staircase" || policy == "step") {
      EXPECT_GT(p.get_int("stepsize"), 0);
      EXPECT_GT(p.get_double("gamma"), 0);
    }
    if (policy == "multistep") {
      EXPECT_TRUE(p.has("stepvalues") && p.has("gamma"));
    }
    if (policy == "torch_decay") {
      EXPECT_GT(p.get_double("gamma"), 0);
    }
    if (p.has("patience") && p.get_int("patience") > 0) {
      EXPECT_GT(p.get_int("validation_count"), 0);
      EXPECT_GT(p.get_int("validation_interval"), 0);
    }
  }
}

TEST(Presets, EveryValueSaysWhereItComesFrom) {
  for (const auto& name : embedded_names("presets", ".preset")) {
    SCOPED_TRACE(name);
    const std::string text = *embedded_file("presets/" + name + ".preset");
    std::istringstream lines(text);
    std::string line;
    int number = 0;
    while (std::getline(lines, line)) {
      ++number;
      const auto start = line.find_first_not_of(" \t");
      if (start == std::string::npos || line[start] == '#' || line.compare(start, 6, "notes ") == 0) continue;
      const auto hash = line.find('#');
      EXPECT_NE(hash, std::string::npos) << name << ":" << number << " has no comment: " << line;
      if (hash != std::string::npos) {
        EXPECT_GT(line.size(), hash + 3) << name << ":" << number;
      }
    }
  }
}

// The study's numbers (reference/frameworks.md), key by key.
TEST(Presets, HoldTheStudysDefaults) {
  const std::map<std::string, std::map<std::string, std::string>> expected = {
      {"caffe-cifar10",
       {{"model", "cifar10_quick"}, {"strategy", "layerwise"}, {"backend", "openblas"}, {"threads", "all"},
        {"precision", "f32"}, {"optimizer", "caffe_sgd"}, {"base_lr", "0.001"}, {"lr_policy", "multistep"},
        {"gamma", "0.1"}, {"stepvalues", "4000"}, {"momentum", "0.9"}, {"weight_decay", "0.004"}, {"batch", "100"},
        {"iterations", "5000"}, {"test_interval", "500"}, {"test_batch", "100"}, {"test_iterations", "100"},
        {"transform", "mean:image"}, {"shuffle", "false"}}},
      {"tensorflow-mnist",
       {{"model", "tf-mnist"}, {"strategy", "static"}, {"backend", "eigen"}, {"threads", "all"}, {"precision", "f32"},
        {"optimizer", "adam"}, {"base_lr", "0.0001"}, {"lr_policy", "fixed"}, {"batch", "50"}, {"iterations", "20000"},
        {"validation_count", "5000"}, {"transform", "scale:1/255"}, {"executor", "parallel"},
        {"passes", "constant_folding,cse,dce,buffer_forwarding,refcount_allocation"}}},
      {"tensorflow-cifar10",
       {{"model", "tf-cifar10"}, {"strategy", "static"}, {"backend", "eigen"}, {"precision", "f32"},
        {"optimizer", "gd"}, {"base_lr", "0.1"}, {"lr_policy", "exp_staircase"}, {"gamma", "0.1"},
        {"stepsize", "136718"}, {"weight_decay", "0.004"}, {"weight_average_decay", "0.9999"}, {"batch", "128"},
        {"iterations", "1000000"},
        {"transform", "random_crop:24x24+random_flip+random_brightness:63+random_contrast:0.2,1.8+standardize:image"},
        {"test_transform", "central_crop:24x24+standardize:image"},
        {"passes", "constant_folding,cse,dce,buffer_forwarding,refcount_allocation"}}},
      {"torch-mnist",
       {{"model", "torch-mnist"}, {"strategy", "dynamic"}, {"backend", "openblas"}, {"threads", "4"},
        {"precision", "f32"}, {"optimizer", "torch_sgd"}, {"base_lr", "0.05"}, {"lr_policy", "torch_decay"},
        {"gamma", "5e-7"}, {"momentum", "0"}, {"batch", "10"}, {"epochs", "20"}, {"test_interval_epochs", "1"},
        {"transform", "pad:2+standardize:global"}, {"shuffle", "true"}}},
      {"torch-cifar10",
       {{"model", "torch-cifar10"}, {"strategy", "dynamic"}, {"backend", "openblas"}, {"threads", "2"},
        {"precision", "f64"}, {"optimizer", "torch_sgd"}, {"base_lr", "0.001"}, {"lr_policy", "torch_decay"},
        {"gamma", "5e-7"}, {"momentum", "0"}, {"batch", "1"}, {"per_sample", "true"}, {"epochs", "45"},
        {"test_interval_epochs", "1"}, {"transform", "yuv_lcn:7"}}},
      {"theano-mnist",
       {{"model", "theano-lenet5"}, {"strategy", "static"}, {"backend", "openblas"}, {"precision", "f64"},
        {"optimizer", "gd"}, {"base_lr", "0.1"}, {"batch", "500"}, {"epochs", "200"}, {"validation_count", "10000"},
        {"validation_interval", "100"}, {"patience", "10000"}, {"patience_increase", "2"},
        {"improvement_threshold", "0.995"}, {"transform", "scale:1/255"}, {"passes", "constant_folding,cse,dce,elementwise_fusion,inplace,refcount_allocation"},
        {"seed", "23455"}}},
      {"theano-cifar10",
       {{"model", "theano-cifar10"}, {"strategy", "static"}, {"backend", "openblas"}, {"precision", "f64"},
        {"optimizer", "caffe_sgd"}, {"momentum", "0.9"}, {"base_lr", "0.01"}, {"lr_policy", "fixed"},
        {"batch", "50"}, {"epochs", "50"}, {"transform", "scale:1/255"},
        {"passes", "constant_folding,cse,dce,elementwise_fusion,inplace,refcount_allocation"}}},
  };
  for (const auto& [name, keys] : expected) {
    SCOPED_TRACE(name);
    const Preset p = load_preset(name);
    EXPECT_EQ(p.get("framework") + "-" + p.get("dataset_family"), name);
    for (const auto& [key, value] : keys) {
      ASSERT_TRUE(p.has(key)) << key;
      // Numbers compare as numbers ("1e-4" and "0.0001" are one value).
      const bool numeric = p.get(key).find_first_not_of("0123456789.e-") == std::string::npos &&
                           value.find_first_not_of("0123456789.e-") == std::string::npos;
      if (numeric)
        EXPECT_DOUBLE_EQ(p.get_double(key), std::stod(value)) << key;
      else
        EXPECT_EQ(p.get(key), value) << key;
    }
  }
}

}  // namespace
}  // namespace ablate::models
