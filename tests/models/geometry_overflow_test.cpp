// Model files with sizes and pads near INT_MAX (found by fuzz/model_spec_fuzzer: the padded
// input of a convolution or pooling layer overflowed int): shape inference must reject them
// with an error naming the layer and the padded size, not compute with a wrapped int.
#include <gtest/gtest.h>

#include "models/model_spec.h"
#include "models/shape_inference.h"
#include "error_expectations.h"

namespace ablate::models {
namespace {

using testing::expect_error;

ModelSpec model(const std::string& input, const std::string& layer) {
  return parse_model("model m\ninput " + input + "\nclasses 3\n" + layer +
                         "\nlayer f inner_product outputs=3\nlayer loss softmax_loss\n",
                     "huge.model");
}

TEST(GeometryOverflow, ConvolutionPadPastIntMax) {
  const ModelSpec spec = model("1 2147483647 2147483647", "layer c convolution outputs=2 kernel=3 pad=2147483647");
  expect_error([&] { infer_shapes(spec, 1); },
               {"huge.model:4", "layer 'c' (convolution)", "padded by 2147483647+2147483647 is 6442450941",
                "expected at most 2147483647"});
}

TEST(GeometryOverflow, PoolingPadPastIntMax) {
  const ModelSpec spec =
      model("1 2147483647 4", "layer p pooling kernel=2147483647 pad=2147483646 padding=caffe_ceil");
  expect_error([&] { infer_shapes(spec, 1); },
               {"huge.model:4", "layer 'p' (pooling)", "padded by 2147483646+2147483646", "expected at most 2147483647"});
}

TEST(GeometryOverflow, SameConvolutionOnTheLargestInput) {
  const ModelSpec spec = model("1 2147483647 1", "layer c convolution outputs=1 kernel_h=5 kernel_w=1 stride=2 padding=same");
  expect_error([&] { infer_shapes(spec, 1); }, {"layer 'c' (convolution)", "expected at most 2147483647"});
}

}  // namespace
}  // namespace ablate::models
