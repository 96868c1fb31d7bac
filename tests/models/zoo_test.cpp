// The zoo: every default model of the four frameworks parses, and its shapes are those of the
// framework's own script (the flattened feature count before the first fully connected layer
// is where a wrong padding or pooling rule shows).
#include <gtest/gtest.h>

#include "models/model_spec.h"
#include "models/parameters.h"
#include "models/shape_inference.h"

namespace ablate::models {
namespace {

struct ZooCase {
  const char* name;
  std::vector<int> input;  // C, H, W
  const char* first_fc;    // the first inner_product layer
  std::int64_t features;   // its input features, as the framework's script has them
  std::int64_t parameters; // learnable values in all
};

class Zoo : public ::testing::TestWithParam<ZooCase> {};

TEST_P(Zoo, ShapesMatchTheFrameworkScript) {
  const ZooCase& c = GetParam();
  const ModelSpec spec = load_model(c.name);
  EXPECT_EQ(spec.input_shape, c.input);
  EXPECT_EQ(spec.classes, 10);
  const auto shapes = infer_shapes(spec, 2);
  bool found = false;
  for (std::size_t i = 0; i < shapes.size(); ++i)
    if (shapes[i].name == c.first_fc) {
      found = true;
      ASSERT_EQ(shapes[i].params.size() > 0, true);
      EXPECT_EQ(shapes[i].params[0][1], c.features) << c.first_fc;
    }
  EXPECT_TRUE(found) << c.first_fc;
  EXPECT_EQ(shapes.back().output, (std::vector<std::int64_t>{1})) << "the last layer is the loss";
  std::int64_t total = 0;
  for (const auto& p : make_initial_parameters(spec, kernels::DType::f32, 1)) total += p.value.numel();
  EXPECT_EQ(total, c.parameters);
}

// Parameter counts by hand from each framework's layer list (weights + biases).
INSTANTIATE_TEST_SUITE_P(
    Models, Zoo,
    ::testing::Values(
        ZooCase{"lenet", {1, 28, 28}, "ip1", 800, 20 * 25 + 20 + 50 * 20 * 25 + 50 + 800 * 500 + 500 + 5010},
        ZooCase{"cifar10_quick", {3, 32, 32}, "ip1", 1024,
                32 * 3 * 25 + 32 + 32 * 32 * 25 + 32 + 64 * 32 * 25 + 64 + 1024 * 64 + 64 + 650},
        ZooCase{"tf-mnist", {1, 28, 28}, "fc1", 3136, 32 * 25 + 32 + 64 * 32 * 25 + 64 + 3136 * 1024 + 1024 + 10250},
        ZooCase{"tf-cifar10", {3, 24, 24}, "local3", 2304,
                64 * 3 * 25 + 64 + 64 * 64 * 25 + 64 + 2304 * 384 + 384 + 384 * 192 + 192 + 1930},
        ZooCase{"torch-mnist", {1, 32, 32}, "fc1", 576, 32 * 25 + 32 + 64 * 32 * 25 + 64 + 576 * 200 + 200 + 2010},
        ZooCase{"torch-cifar10", {3, 32, 32}, "fc1", 6400, 16 * 25 + 16 + 256 * 4 * 25 + 256 + 6400 * 128 + 128 + 1290},
        ZooCase{"theano-lenet5", {1, 28, 28}, "hidden", 800, 20 * 25 + 20 + 50 * 20 * 25 + 50 + 800 * 500 + 500 + 5010},
        ZooCase{"theano-cifar10", {3, 32, 32}, "fc1", 128, 4 * 27 + 4 + 8 * 4 * 9 + 8 + 128 * 100 + 100 + 1010},
        // LeNet without convolution biases, a scale and a shift per channel in each batch_norm
        ZooCase{"lenet-bn-gelu", {1, 28, 28}, "ip1", 800, 20 * 25 + 2 * 20 + 50 * 20 * 25 + 2 * 50 + 800 * 500 + 500 + 5010},
        // He et al. 2016: the stem, 3 stages of 3 basic blocks (two 3x3 convolutions without bias,
        // each with a batch_norm scale and shift), 1x1 projections where stages 2 and 3 begin, fc
        ZooCase{"resnet20", {3, 32, 32}, "fc", 64,
                (16 * 3 * 9 + 32) + 3 * 2 * (16 * 16 * 9 + 32) +                         // stem, stage 1
                    (32 * 16 * 9 + 32 * 32 * 9 + 2 * 64 + 32 * 16 + 64) + 2 * 2 * (32 * 32 * 9 + 64) +  // stage 2
                    (64 * 32 * 9 + 64 * 64 * 9 + 2 * 128 + 64 * 32 + 128) + 2 * 2 * (64 * 64 * 9 + 128) +  // stage 3
                    64 * 10 + 10},
        ZooCase{"resnet8-mnist", {1, 28, 28}, "fc", 64,
                (16 * 1 * 9 + 32) + 2 * (16 * 16 * 9 + 32) + (32 * 16 * 9 + 32 * 32 * 9 + 2 * 64 + 32 * 16 + 64) +
                    (64 * 32 * 9 + 64 * 64 * 9 + 2 * 128 + 64 * 32 + 128) + 64 * 10 + 10}),
    [](const ::testing::TestParamInfo<ZooCase>& info) {
      std::string name = info.param.name;
      for (char& ch : name)
        if (ch == '-') ch = '_';
      return name;
    });

}  // namespace
}  // namespace ablate::models
