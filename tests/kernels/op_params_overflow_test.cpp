// Geometry rules on the largest sizes a model file may write (found by fuzz/model_spec_fuzzer):
// in + 2 pad, ceil(in / s) and (out - 1) s overflowed int. Each padded extent must fit an int
// (every window index of the kernels lies inside it) or the call fails naming the sizes; sizes
// near INT_MAX that fit still give exact outputs.
#include <gtest/gtest.h>

#include <climits>
#include <functional>
#include <stdexcept>
#include <string>

#include "kernels/op_params.h"
#include "test_tensors.h"

namespace ablate::kernels {
namespace {

using test::invalid_argument_of;

void expect_too_large(const std::function<void()>& f, const std::string& padded) {
  const std::string what = invalid_argument_of(f);
  EXPECT_NE(what.find("is " + padded + ", expected at most 2147483647"), std::string::npos) << what;
}

TEST(OpParamsOverflow, ConvolutionPaddedPastIntMax) {
  expect_too_large([] { conv2d_out_size(INT_MAX, 3, 1, INT_MAX, INT_MAX); }, "6442450941");
  expect_too_large([] { conv2d_out_size(INT_MAX, 1, 1, 0, 1); }, "2147483648");
  EXPECT_EQ(conv2d_out_size(INT_MAX, 1, 1, 0, 0), INT_MAX);
  EXPECT_EQ(conv2d_out_size(INT_MAX - 2, 1, INT_MAX, 1, 1), 1);
}

TEST(OpParamsOverflow, PoolingPaddedPastIntMax) {
  for (PoolPadding padding : {PoolPadding::caffe_ceil, PoolPadding::valid})
    expect_too_large([&] { make_pool2d_params(PoolKind::max, 3, 1, 2, padding, INT_MAX - 1, 8); }, "2147483650");
  Pool2dParams p = make_pool2d_params(PoolKind::max, 3, 1, 1, PoolPadding::caffe_ceil, INT_MAX - 2, 8);
  EXPECT_EQ(p.out_h, INT_MAX - 2);
  p = make_pool2d_params(PoolKind::avg, 2, 2, 0, PoolPadding::valid, INT_MAX, 8);
  EXPECT_EQ(p.out_h, INT_MAX / 2);
}

TEST(OpParamsOverflow, SameOnTheLargestInputs) {
  // ceil(in / s) computed as (in + s - 1) / s overflowed for in near INT_MAX.
  expect_too_large([] { make_pool2d_params(PoolKind::max, 5, 2, 0, PoolPadding::tf_same, INT_MAX, 8); },
                   "2147483651");
  expect_too_large([] { make_same_conv2d_params(5, 1, 2, INT_MAX, 8); }, "2147483651");
  Pool2dParams p = make_pool2d_params(PoolKind::max, 2, INT_MAX, 0, PoolPadding::tf_same, INT_MAX - 1, 8);
  EXPECT_EQ(p.out_h, 1);
  Conv2dParams c = make_same_conv2d_params(1, 1, INT_MAX, INT_MAX, INT_MAX);
  EXPECT_EQ(c.pad_top + c.pad_bottom, 0);
}

}  // namespace
}  // namespace ablate::kernels
