// The zoo and the presets are compiled into the binary, identical to the files in models/,
// and every one of them parses (models with their shapes, presets with a zoo model).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "models/embedded_files.h"
#include "models/model_spec.h"
#include "models/preset.h"
#include "models/shape_inference.h"
#include "models/source_resolver.h"

namespace ablate::models {
namespace {

std::string read_source_file(const std::string& relative) {
  std::ifstream in(std::string(ABLATE_SOURCE_DIR) + "/models/" + relative, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(EmbeddedFiles, LenetAndCaffeMnistAreEmbeddedVerbatim) {
  for (const char* name : {"zoo/lenet.model", "presets/caffe-mnist.preset"}) {
    auto text = embedded_file(name);
    ASSERT_TRUE(text.has_value()) << name;
    EXPECT_FALSE(text->empty());
    EXPECT_EQ(*text, read_source_file(name)) << name;
  }
  EXPECT_FALSE(embedded_file("zoo/none.model").has_value());
  const auto zoo = embedded_names("zoo", ".model");
  EXPECT_NE(std::find(zoo.begin(), zoo.end(), "lenet"), zoo.end());
}

TEST(EmbeddedFiles, EveryZooModelAndPresetParses) {
  for (const auto& name : embedded_names("zoo", ".model")) {
    SCOPED_TRACE(name);
    const ModelSpec spec = load_model(name);
    EXPECT_EQ(spec.name, name);
    EXPECT_EQ(infer_shapes(spec, 2).size(), spec.layers.size());
  }
  for (const auto& name : embedded_names("presets", ".preset")) {
    SCOPED_TRACE(name);
    const Preset preset = load_preset(name);
    EXPECT_EQ(preset_name(preset.get("framework"), preset.get("dataset_family")), name);
    EXPECT_NO_THROW(load_model(preset.get("model")));
  }
}

}  // namespace
}  // namespace ablate::models
