// The frameworks' geometry rules (kernels/op_params.cpp): Caffe's ceil pooling with its
// dropped last window, TF SAME for pooling and convolution, valid/floor pooling, and the
// names and errors.
#include <gtest/gtest.h>

#include <stdexcept>

#include "kernels/op_params.h"
#include "test_tensors.h"

namespace ablate::kernels {
namespace {

using test::invalid_argument_of;

TEST(OpParams, Names) {
  for (PoolPadding p : {PoolPadding::caffe_ceil, PoolPadding::tf_same, PoolPadding::valid})
    EXPECT_EQ(parse_pool_padding(pool_padding_name(p)), p);
  std::string what = invalid_argument_of([] { parse_pool_padding("SAME"); });
  for (const char* s : {"'SAME'", "caffe_ceil", "tf_same", "valid"}) EXPECT_NE(what.find(s), std::string::npos) << what;
  EXPECT_STREQ(activation_name(Activation::relu), "relu");
  EXPECT_STREQ(activation_name(Activation::tanh), "tanh");
  EXPECT_STREQ(activation_name(Activation::sigmoid), "sigmoid");
}

TEST(OpParams, CaffeCeilPooling) {
  // cifar10_quick: 3/2 over 32 -> 16 -> 8 -> 4 (ceil; floor would give 15, 7, 3).
  for (auto [in, out] : {std::pair{32, 16}, std::pair{16, 8}, std::pair{8, 4}}) {
    Pool2dParams p = make_pool2d_params(PoolKind::max, 3, 2, 0, PoolPadding::caffe_ceil, in, in);
    EXPECT_EQ(p.out_h, out) << in;
    EXPECT_EQ(p.out_w, out) << in;
  }
  // LeNet: 2/2 over 24 -> 12, over 8 -> 4.
  EXPECT_EQ(make_pool2d_params(PoolKind::max, 2, 2, 0, PoolPadding::caffe_ceil, 24, 8).out_h, 12);
  EXPECT_EQ(make_pool2d_params(PoolKind::max, 2, 2, 0, PoolPadding::caffe_ceil, 24, 8).out_w, 4);
  // The last window would start at 6 >= H + pad = 6 (entirely in padding): dropped.
  // ceil((4 + 4 - 3) / 2) + 1 = 4 -> 3; width 6: ceil(7 / 2) + 1 = 5 -> 4.
  Pool2dParams dropped = make_pool2d_params(PoolKind::avg, 3, 2, 2, PoolPadding::caffe_ceil, 4, 6);
  EXPECT_EQ(dropped.out_h, 3);
  EXPECT_EQ(dropped.out_w, 4);
  EXPECT_EQ(dropped.pad_top, 2);
  EXPECT_EQ(dropped.pad_left, 2);
  EXPECT_TRUE(dropped.avg_count_padding);
  EXPECT_EQ(dropped.pad_bottom_limit, 2);  // the divisor counts up to H + pad
  EXPECT_EQ(dropped.pad_right_limit, 2);
  // With pad 1 the last window starts inside: ceil((4 + 2 - 3) / 2) + 1 = 3 is kept.
  EXPECT_EQ(make_pool2d_params(PoolKind::avg, 3, 2, 1, PoolPadding::caffe_ceil, 4, 4).out_h, 3);
}

TEST(OpParams, TfSamePooling) {
  // TF MNIST: 2/2 SAME over 28 -> 14 -> 7; over 7 -> 4 with the odd pad at the bottom.
  Pool2dParams p = make_pool2d_params(PoolKind::max, 2, 2, 0, PoolPadding::tf_same, 28, 7);
  EXPECT_EQ(p.out_h, 14);
  EXPECT_EQ(p.pad_top, 0);
  EXPECT_EQ(p.pad_bottom_limit, 0);
  EXPECT_EQ(p.out_w, 4);
  EXPECT_EQ(p.pad_left, 0);
  EXPECT_EQ(p.pad_right_limit, 1);
  EXPECT_FALSE(p.avg_count_padding);
  // TF cifar10: 3/2 SAME over 24 -> 12, total pad (12-1)*2 + 3 - 24 = 1: top 0, bottom 1;
  // over 5 -> 3, total pad 2: 1 each side.
  Pool2dParams q = make_pool2d_params(PoolKind::max, 3, 2, 0, PoolPadding::tf_same, 24, 5);
  EXPECT_EQ(q.out_h, 12);
  EXPECT_EQ(q.pad_top, 0);
  EXPECT_EQ(q.pad_bottom_limit, 1);
  EXPECT_EQ(q.out_w, 3);
  EXPECT_EQ(q.pad_left, 1);
  EXPECT_EQ(q.pad_right_limit, 1);
  // A kernel smaller than the stride needs no padding (the total is clamped at 0).
  Pool2dParams r = make_pool2d_params(PoolKind::max, 1, 3, 0, PoolPadding::tf_same, 7, 7);
  EXPECT_EQ(r.out_h, 3);
  EXPECT_EQ(r.pad_top, 0);
  EXPECT_EQ(r.pad_bottom_limit, 0);
}

TEST(OpParams, ValidPooling) {
  // Torch: 3/3 pad 1 over 28 -> floor(27 / 3) + 1 = 10; 2/2 over 5 -> 2 (Caffe gives 3).
  EXPECT_EQ(make_pool2d_params(PoolKind::max, 3, 3, 1, PoolPadding::valid, 28, 28).out_h, 10);
  Pool2dParams p = make_pool2d_params(PoolKind::avg, 2, 2, 0, PoolPadding::valid, 5, 5);
  EXPECT_EQ(p.out_h, 2);
  EXPECT_TRUE(p.avg_count_padding);
  EXPECT_EQ(make_pool2d_params(PoolKind::avg, 2, 2, 0, PoolPadding::caffe_ceil, 5, 5).out_h, 3);
}

TEST(OpParams, PoolingErrorsNameTheValue) {
  auto pool = [](int kernel, int stride, int pad, PoolPadding padding, int in) {
    return invalid_argument_of([=] { make_pool2d_params(PoolKind::max, kernel, stride, pad, padding, in, in); });
  };
  EXPECT_NE(pool(0, 1, 0, PoolPadding::valid, 5).find("kernel 0"), std::string::npos);
  EXPECT_NE(pool(2, 0, 0, PoolPadding::valid, 5).find("stride 0"), std::string::npos);
  EXPECT_NE(pool(2, 2, -1, PoolPadding::valid, 5).find("pad -1"), std::string::npos);
  EXPECT_NE(pool(2, 2, 2, PoolPadding::caffe_ceil, 5).find("pad 2"), std::string::npos);
  EXPECT_NE(pool(3, 2, 1, PoolPadding::tf_same, 5).find("pad 1"), std::string::npos);
  EXPECT_NE(pool(5, 1, 0, PoolPadding::valid, 3).find("input size 3"), std::string::npos);
  EXPECT_NE(pool(2, 2, 0, PoolPadding::valid, 0).find("input height 0"), std::string::npos);
  // Caffe without padding, stride 3 > kernel 1 over 5: the third window would start at 6.
  EXPECT_NE(pool(1, 3, 0, PoolPadding::caffe_ceil, 5).find("stride 3"), std::string::npos);
}

TEST(OpParams, SameConvolution) {
  // TF MNIST conv 5x5 SAME stride 1 over 28: pad 2 each side; stride 2 over 7 with 3x3:
  // out 4, total (4-1)*2 + 3 - 7 = 2 -> 1 and 1; stride 2 over 8 with 3x3: total 1 -> 0, 1.
  Conv2dParams p = make_same_conv2d_params(5, 5, 1, 28, 28);
  EXPECT_EQ(p.pad_top, 2);
  EXPECT_EQ(p.pad_bottom, 2);
  EXPECT_EQ(p.pad_left, 2);
  EXPECT_EQ(p.pad_right, 2);
  EXPECT_EQ(conv2d_out_size(28, 5, 1, p.pad_top, p.pad_bottom), 28);
  Conv2dParams q = make_same_conv2d_params(3, 3, 2, 7, 8);
  EXPECT_EQ(q.stride_h, 2);
  EXPECT_EQ(q.pad_top, 1);
  EXPECT_EQ(q.pad_bottom, 1);
  EXPECT_EQ(q.pad_left, 0);
  EXPECT_EQ(q.pad_right, 1);
  EXPECT_EQ(conv2d_out_size(8, 3, 2, q.pad_left, q.pad_right), 4);
  // Even kernel: 4x2 stride 1 -> total 3 and 1: top 1, bottom 2; left 0, right 1.
  Conv2dParams e = make_same_conv2d_params(4, 2, 1, 6, 6);
  EXPECT_EQ(e.pad_top, 1);
  EXPECT_EQ(e.pad_bottom, 2);
  EXPECT_EQ(e.pad_left, 0);
  EXPECT_EQ(e.pad_right, 1);
  EXPECT_NE(invalid_argument_of([] { make_same_conv2d_params(3, 3, 0, 5, 5); }).find("stride 0"), std::string::npos);
}

TEST(OpParams, ConvOutputSize) {
  EXPECT_EQ(conv2d_out_size(28, 5, 1, 0, 0), 24);  // LeNet conv1
  EXPECT_EQ(conv2d_out_size(32, 5, 1, 2, 2), 32);  // cifar10_quick
  EXPECT_EQ(conv2d_out_size(7, 3, 3, 1, 0), 2);    // floor((7 + 1 - 3) / 3) + 1
  EXPECT_NE(invalid_argument_of([] { conv2d_out_size(3, 5, 1, 0, 1); }).find("smaller than kernel 5"), std::string::npos);
  EXPECT_NE(invalid_argument_of([] { conv2d_out_size(3, 1, 0, 0, 0); }).find("stride 0"), std::string::npos);
  EXPECT_NE(invalid_argument_of([] { conv2d_out_size(3, 1, 1, -2, 0); }).find("-2"), std::string::npos);
}

}  // namespace
}  // namespace ablate::kernels
