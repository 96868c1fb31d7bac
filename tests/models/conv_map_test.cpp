// The conv_map layer (Torch's SpatialConvolutionMap): its connection table, shapes and the
// initial weights' fan (Torch's 1/sqrt(KH * KW * inputs per plane)).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "error_expectations.h"
#include "models/layer_params.h"
#include "models/parameters.h"
#include "models/shape_inference.h"

namespace ablate::models {
namespace {

ModelSpec model(const std::string& conv_map_keys) {
  return parse_model("model m\ninput 16 12 12\nclasses 3\nlayer c conv_map " + conv_map_keys +
                         "\nlayer fc inner_product outputs=3\nlayer loss nll_loss\n",
                     "map.model");
}

TEST(ConvMap, TableGivesEachOutputDistinctInputsAndCoversAllOfThem) {
  const ModelSpec spec = model("outputs=256 kernel=5 fan_in=4");
  const auto table = connection_table(spec.layer("c"), 16);
  ASSERT_EQ(table.size(), 2u * 256 * 4);
  std::vector<int> uses(16, 0);
  for (int o = 0; o < 256; ++o) {
    std::set<int> inputs;
    for (int j = 0; j < 4; ++j) {
      const auto t = static_cast<std::size_t>(o * 4 + j);
      EXPECT_EQ(table[2 * t + 1], o);
      inputs.insert(table[2 * t]);
      ++uses[static_cast<std::size_t>(table[2 * t])];
    }
    EXPECT_EQ(inputs.size(), 4u) << "output " << o << " sees an input twice";
  }
  // Whole permutations are used in chunks: every input plane is used equally often.
  for (int c = 0; c < 16; ++c) EXPECT_EQ(uses[static_cast<std::size_t>(c)], 64) << "input " << c;
}

TEST(ConvMap, TableDependsOnTableSeedOnly) {
  const auto a = connection_table(model("outputs=8 kernel=3 fan_in=2").layer("c"), 16);
  const auto b = connection_table(model("outputs=8 kernel=3 fan_in=2 table_seed=1").layer("c"), 16);
  const auto c = connection_table(model("outputs=8 kernel=3 fan_in=2 table_seed=7").layer("c"), 16);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST(ConvMap, ShapesAndTorchFan) {
  const ModelSpec spec = model("outputs=6 kernel=5 fan_in=4 pad=2");
  const auto shapes = infer_shapes(spec, 2);
  EXPECT_EQ(shapes[0].output, (std::vector<std::int64_t>{2, 6, 12, 12}));
  ASSERT_EQ(shapes[0].params.size(), 2u);
  EXPECT_EQ(shapes[0].params[0], (std::vector<std::int64_t>{24, 5, 5}));
  EXPECT_EQ(shapes[0].params[1], (std::vector<std::int64_t>{6}));

  const ModelSpec torch_init = model("outputs=6 kernel=5 fan_in=4 weight_init=uniform_fan_in bias_init=uniform_fan_in");
  const auto params = make_initial_parameters(torch_init, kernels::DType::f64, 3);
  const double bound = 1.0 / std::sqrt(5.0 * 5.0 * 4.0);
  for (std::size_t i = 0; i < 2; ++i) {
    const double* v = params[i].value.data<double>();
    double max_abs = 0;
    for (std::int64_t k = 0; k < params[i].value.numel(); ++k) max_abs = std::max(max_abs, std::abs(v[k]));
    EXPECT_LE(max_abs, bound) << params[i].name;
    EXPECT_GT(max_abs, 0.8 * bound) << params[i].name << " drawn with too narrow a bound";
  }
}

TEST(ConvMap, ErrorsNameTheLayer) {
  testing::expect_error([] { model("outputs=6 kernel=5"); }, {"map.model", "'c'", "fan_in"});
  testing::expect_error([] { infer_shapes(model("outputs=6 kernel=5 fan_in=20"), 1); }, {"'c'", "fan_in 20", "16"});
}

}  // namespace
}  // namespace ablate::models
