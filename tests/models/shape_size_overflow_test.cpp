// Shape inference on models whose tensors cannot be counted (found by fuzz/model_spec_fuzzer:
// batch x C x H x W, and the weights of a wide layer, overflowed int64 in shape_numel): the
// error names the model input or the layer instead of handing on a wrapped count.
#include <gtest/gtest.h>

#include "models/model_spec.h"
#include "models/shape_inference.h"
#include "error_expectations.h"

namespace ablate::models {
namespace {

using testing::expect_error;

ModelSpec model(const std::string& input, const std::string& layers) {
  return parse_model("model m\ninput " + input + "\nclasses 3\n" + layers + "layer loss softmax_loss\n", "wide.model");
}

TEST(ShapeSizeOverflow, InputOfTheBatchPastInt64) {
  const ModelSpec spec = model("2147483647 2147483647 2147483647", "layer f inner_product outputs=3\n");
  expect_error([&] { infer_shapes(spec, 64); },
               {"wide.model: model 'm': input of batch 64", "[64, 2147483647, 2147483647, 2147483647]",
                "more than 2^63 - 1 elements"});
  EXPECT_NO_THROW(infer_shapes(model("1000 1000 1000", "layer f inner_product outputs=3\n"), 64));
}

TEST(ShapeSizeOverflow, WeightsPastInt64) {
  const ModelSpec spec = model("1000000 1000000 1",
                              "layer c convolution outputs=2147483647 kernel_h=1000000 kernel_w=1\n"
                              "layer f inner_product outputs=3\n");
  expect_error([&] { infer_shapes(spec, 1); },
               {"wide.model:4: layer 'c' (convolution)", "[2147483647, 1000000, 1000000, 1]",
                "more than 2^63 - 1 elements"});
}

TEST(ShapeSizeOverflow, InnerProductWeightsPastInt64) {
  const ModelSpec spec = model("2147483647 2147483647 1", "layer f inner_product outputs=2147483647\n"
                                                          "layer g inner_product outputs=3\n");
  expect_error([&] { infer_shapes(spec, 1); },
               {"wide.model:4: layer 'f' (inner_product)", "[2147483647, 4611686014132420609]",
                "more than 2^63 - 1 elements"});
}

}  // namespace
}  // namespace ablate::models
