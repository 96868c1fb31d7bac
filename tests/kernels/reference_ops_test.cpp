// The reference backend on examples worked out by hand (the oracle needs its own oracle):
// gemm, convolution with asymmetric padding and stride, the connection-table convolution,
// the pooling conventions' windows and divisors, LRN, softmax and the losses, activations,
// dropout, elementwise ops, concatenation, and the entry checks' error messages.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "kernels/counter_random.h"
#include "kernels/op_params.h"
#include "kernels/registry.h"
#include "test_tensors.h"

namespace ablate::kernels::test {
namespace {

Tensor make(const Shape& shape, std::vector<double> values, DType dtype = DType::f64) {
  Tensor t(shape, dtype);
  EXPECT_EQ(static_cast<std::int64_t>(values.size()), t.numel());
  for (std::size_t i = 0; i < values.size(); ++i) t.set(static_cast<std::int64_t>(i), values[i]);
  return t;
}

void expect_values(const Tensor& t, std::vector<double> want, const char* what) {
  EXPECT_TRUE(all_near(t, make({static_cast<std::int64_t>(want.size())}, want), 1e-12)) << what;
}

class ReferenceOps : public ::testing::Test {
 protected:
  std::unique_ptr<Backend> b = make_backend("reference");
};

TEST_F(ReferenceOps, Gemm) {
  Tensor a = make({2, 3}, {1, 2, 3, 4, 5, 6}), bm = make({3, 2}, {1, 0, 0, 1, 1, 1});
  Tensor c = make({2, 2}, {10, 20, 30, 40});
  b->gemm(false, false, 1.0, a, bm, 0.0, c);  // beta 0: c overwritten
  expect_values(c, {4, 5, 10, 11}, "a b");
  b->gemm(false, false, 2.0, a, bm, 1.0, c);
  expect_values(c, {12, 15, 30, 33}, "2 a b + c");
  Tensor at = make({3, 2}, {1, 4, 2, 5, 3, 6}), bt = make({2, 3}, {1, 0, 1, 0, 1, 1});
  b->gemm(true, true, 1.0, at, bt, 0.0, c);
  expect_values(c, {4, 5, 10, 11}, "a^T b^T");
  Tensor wrong({3, 3}, DType::f64);
  std::string what = invalid_argument_of([&] { b->gemm(false, false, 1.0, a, bm, 0.0, wrong); });
  EXPECT_NE(what.find("reference gemm: c is f64[3, 3], expected shape [2, 2]"), std::string::npos) << what;
}

TEST_F(ReferenceOps, ConvWithAsymmetricPaddingAndStride) {
  // x = 1..9 in a 3x3 plane; w = [[1, 0], [0, -1]]: y[i, j] = x[i + di, j + dj] - x[i + di + 1, j + dj + 1].
  Tensor x = make({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}), w = make({1, 1, 2, 2}, {1, 0, 0, -1});
  Tensor y({1, 1, 2, 2}, DType::f64);
  b->conv2d_forward(x, w, Tensor(), y, Conv2dParams{});
  expect_values(y, {-4, -4, -4, -4}, "no padding");
  // Padding top 1 and left 1 only: y[oh, ow] = x[oh-1, ow-1] - x[oh, ow], zero outside.
  Tensor y3({1, 1, 3, 3}, DType::f64);
  b->conv2d_forward(x, w, make({1}, {0.5}), y3, Conv2dParams{1, 1, 1, 1, 0, 0});
  expect_values(y3, {-0.5, -1.5, -2.5, -3.5, -3.5, -3.5, -6.5, -3.5, -3.5}, "pad top-left, bias 0.5");
  // Stride 2 over 3x3 with a 2x2 kernel: one output.
  Tensor y1({1, 1, 1, 1}, DType::f64);
  b->conv2d_forward(x, w, Tensor(), y1, Conv2dParams{2, 2, 0, 0, 0, 0});
  expect_values(y1, {-4}, "stride 2");
  // Backward data of the stride-2 case scatters dy = 1 onto w's footprint.
  Tensor dx({1, 1, 3, 3}, DType::f64);
  b->conv2d_backward_data(make({1, 1, 1, 1}, {1}), w, dx, Conv2dParams{2, 2, 0, 0, 0, 0});
  expect_values(dx, {1, 0, 0, 0, -1, 0, 0, 0, 0}, "backward data");
  // Backward weights of the unpadded case with dy = 1: dw[i, j] = sum of the 2x2 window sums.
  Tensor dw({1, 1, 2, 2}, DType::f64), dbias({1}, DType::f64);
  b->conv2d_backward_weights(x, make({1, 1, 2, 2}, {1, 1, 1, 1}), dw, dbias, Conv2dParams{});
  expect_values(dw, {1 + 2 + 4 + 5, 2 + 3 + 5 + 6, 4 + 5 + 7 + 8, 5 + 6 + 8 + 9}, "backward weights");
  expect_values(dbias, {4}, "backward bias");
  std::string what = invalid_argument_of([&] { b->conv2d_forward(x, make({1, 2, 2, 2}, {1, 1, 1, 1, 1, 1, 1, 1}), Tensor(), y, {}); });
  EXPECT_NE(what.find("input channels"), std::string::npos) << what;
}

// Torch's SpatialConvolutionMap by hand: inputs x0 = 1..9 and x1 (3x3), table (0>0, 1>0, 1>1)
// with kernels w0 = [[1, 0], [0, -1]] (x[i,j] - x[i+1,j+1]), w1 = ones (window sums),
// w2 = [[0, 1], [0, 0]] (x[i, j+1]); bias (0.5, -1). Output 0 = corr(x0, w0) + corr(x1, w1) + 0.5,
// output 1 = corr(x1, w2) - 1: x0 never reaches output 1.
TEST_F(ReferenceOps, ConvMapByHand) {
  Tensor x = make({1, 2, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, /* x1 */ 1, 0, 2, 0, 3, 0, 4, 0, 5});
  Tensor w = make({3, 2, 2}, {1, 0, 0, -1, /* w1 */ 1, 1, 1, 1, /* w2 */ 0, 1, 0, 0});
  Tensor table = make({3, 2}, {0, 0, 1, 0, 1, 1}, DType::i32);
  Tensor y({1, 2, 2, 2}, DType::f64);
  b->conv2d_map_forward(x, w, make({2}, {0.5, -1}), table, y, Conv2dParams{});
  // corr(x0, w0) = -4 everywhere; corr(x1, w1) = 4, 5, 7, 8; corr(x1, w2) = 0, 2, 3, 0.
  expect_values(y, {0.5, 1.5, 3.5, 4.5, /* output 1 */ -1, 1, 2, -1}, "forward");
  // dy0 = 1 at (0, 0), dy1 = 1 at (1, 1): each scatters its kernels onto the pixels it read.
  Tensor dy = make({1, 2, 2, 2}, {1, 0, 0, 0, 0, 0, 0, 1});
  Tensor dx({1, 2, 3, 3}, DType::f64);
  b->conv2d_map_backward_data(dy, w, table, dx, Conv2dParams{});
  expect_values(dx, {1, 0, 0, 0, -1, 0, 0, 0, 0, /* dx1 = w1 at (0,0) + w2 at (1,1) */ 1, 1, 0, 1, 1, 1, 0, 0, 0},
                "backward data");
  // dw[t] = the input window that the single 1 of its output plane's dy read.
  Tensor dw({3, 2, 2}, DType::f64), dbias({2}, DType::f64);
  b->conv2d_map_backward_weights(x, dy, table, dw, dbias, Conv2dParams{});
  expect_values(dw, {1, 2, 4, 5, /* x1 at (0,0) */ 1, 0, 0, 3, /* x1 at (1,1) */ 3, 0, 0, 5}, "backward weights");
  expect_values(dbias, {1, 1}, "backward bias");
  // A table row naming a plane that does not exist.
  Tensor bad = make({3, 2}, {0, 0, 2, 0, 1, 1}, DType::i32);
  std::string what = invalid_argument_of([&] { b->conv2d_map_forward(x, w, Tensor(), bad, y, Conv2dParams{}); });
  EXPECT_NE(what.find("reference conv2d_map_forward: table row 1 has input plane 2, expected one in [0, 2)"),
            std::string::npos) << what;
  what = invalid_argument_of([&] { b->conv2d_map_forward(x, w, Tensor(), make({2, 2}, {0, 0, 1, 1}, DType::i32), y, {}); });
  EXPECT_NE(what.find("table is i32[2, 2], expected shape [3, 2]"), std::string::npos) << what;
}

// Average pooling of ones shows each convention's divisor: a window's value is
// (real cells) / divisor, separable in rows and columns.
TEST_F(ReferenceOps, AveragePoolingDivisorsPerConvention) {
  auto avg_of_ones = [&](PoolPadding padding, int kernel, int stride, int pad, int in) {
    Pool2dParams p = make_pool2d_params(PoolKind::avg, kernel, stride, pad, padding, in, in);
    Tensor x(Shape{1, 1, in, in}, DType::f64), y(Shape{1, 1, p.out_h, p.out_w}, DType::f64), ws;
    b->fill(x, 1.0);
    b->pool2d_forward(x, y, ws, p);
    return y;
  };
  auto outer = [](std::vector<double> r) {
    std::vector<double> v;
    for (double a : r)
      for (double c : r) v.push_back(a * c);
    return v;
  };
  // Caffe 3/2 pad 1 over 4: windows [-1, 2), [1, 4), [3, 6) clipped to [-1, 5):
  // divisors 3, 3, 2 over 2, 3, 1 real cells.
  expect_values(avg_of_ones(PoolPadding::caffe_ceil, 3, 2, 1, 4), outer({2.0 / 3, 1.0, 0.5}), "caffe");
  // Valid 3/2 pad 1 over 4: floor -> 2 windows, [-1, 2) and [1, 4): 2/3 and 1.
  expect_values(avg_of_ones(PoolPadding::valid, 3, 2, 1, 4), outer({2.0 / 3, 1.0}), "valid");
  // TF SAME divides by real cells only: all ones.
  expect_values(avg_of_ones(PoolPadding::tf_same, 3, 2, 0, 4), outer({1.0, 1.0}), "tf_same");
  // TF SAME on a ramp: windows [0, 3) and [2, 5) -> real [2, 4): means 2 and 3.5.
  Pool2dParams p = make_pool2d_params(PoolKind::avg, 3, 2, 0, PoolPadding::tf_same, 1, 4);
  p.kernel_h = 1;  // a 1x3 window over a 1x4 row: no padding in height
  p.pad_top = p.pad_bottom_limit = 0;
  p.out_h = 1;
  Tensor row = make({1, 1, 1, 4}, {1, 2, 3, 4}), y({1, 1, 1, 2}, DType::f64), ws;
  b->pool2d_forward(row, y, ws, p);
  expect_values(y, {2.0, 3.5}, "tf_same ramp");
}

TEST_F(ReferenceOps, MaxPoolingIgnoresPaddingAndRoutesTheGradient) {
  // All negative values with padding 1: the max is a real cell, never the zero padding.
  Tensor x = make({1, 1, 2, 2}, {-4, -3, -2, -1});
  Pool2dParams p = make_pool2d_params(PoolKind::max, 2, 1, 1, PoolPadding::valid, 2, 2);  // 3x3 out
  Tensor y({1, 1, 3, 3}, DType::f64), ws;
  b->pool2d_forward(x, y, ws, p);
  expect_values(y, {-4, -3, -3, -2, -1, -1, -2, -1, -1}, "max");
  EXPECT_EQ(ws.dtype(), DType::i32);
  EXPECT_EQ(ws.shape(), y.shape());
  EXPECT_EQ(ws.at(4), 3.0);  // flat index of -1 in the plane
  Tensor dx({1, 1, 2, 2}, DType::f64);
  b->pool2d_backward(x, y, make({1, 1, 3, 3}, {1, 1, 1, 1, 1, 1, 1, 1, 1}), ws, dx, p);
  expect_values(dx, {1, 2, 2, 4}, "max backward");
  // Ties: the first cell in raster order wins (Caffe).
  Tensor flat = make({1, 1, 2, 2}, {5, 5, 5, 5}), one({1, 1, 1, 1}, DType::f64), ws2;
  b->pool2d_forward(flat, one, ws2, make_pool2d_params(PoolKind::max, 2, 2, 0, PoolPadding::valid, 2, 2));
  EXPECT_EQ(ws2.at(0), 0.0);
  std::string what = invalid_argument_of([&] { b->pool2d_backward(x, y, y, Tensor(), dx, p); });
  EXPECT_NE(what.find("workspace"), std::string::npos) << what;
}

TEST_F(ReferenceOps, LrnAcrossChannels) {
  // One pixel, x = (1, 2, 3), size 3, alpha 3 (alpha / size = 1), beta 1, k 1:
  // scale = (1 + 1 + 4, 1 + 1 + 4 + 9, 1 + 4 + 9) = (6, 15, 14); y = x / scale.
  Tensor x = make({1, 3, 1, 1}, {1, 2, 3}), y({1, 3, 1, 1}, DType::f64), ws;
  b->lrn_forward(x, y, ws, LrnParams{3, 3.0, 1.0, 1.0});
  expect_values(y, {1.0 / 6, 2.0 / 15, 3.0 / 14}, "lrn beta 1");
  expect_values(ws, {6, 15, 14}, "lrn scale in the workspace");
  // beta 0.5, k 2, size 1 (own channel only), alpha 1: y = x / sqrt(2 + x^2).
  b->lrn_forward(x, y, ws, LrnParams{1, 1.0, 0.5, 2.0});
  expect_values(y, {1 / std::sqrt(3.0), 2 / std::sqrt(6.0), 3 / std::sqrt(11.0)}, "lrn size 1");
  std::string what = invalid_argument_of([&] { b->lrn_forward(x, y, ws, LrnParams{4, 1.0, 0.75, 1.0}); });
  EXPECT_NE(what.find("size 4"), std::string::npos) << what;
}

TEST_F(ReferenceOps, SoftmaxAndLosses) {
  Tensor x = make({2, 2}, {0, std::log(3.0), 1000, 1000}), y({2, 2}, DType::f64);
  b->softmax_forward(x, y);
  expect_values(y, {0.25, 0.75, 0.5, 0.5}, "softmax (the large row must not overflow)");
  b->log_softmax_forward(x, y);
  expect_values(y, {std::log(0.25), std::log(0.75), std::log(0.5), std::log(0.5)}, "log_softmax");
  Tensor labels({2}, DType::i32);
  labels.set(0, 1);
  labels.set(1, 0);
  Tensor prob({2, 2}, DType::f64);
  EXPECT_NEAR(b->softmax_xent_forward(x, labels, prob), -(std::log(0.75) + std::log(0.5)) / 2, 1e-14);
  expect_values(prob, {0.25, 0.75, 0.5, 0.5}, "prob");
  Tensor d({2, 2}, DType::f64);
  b->softmax_xent_backward(prob, labels, 0.5, d);
  expect_values(d, {0.125, -0.125, -0.25, 0.25}, "dlogits");
  EXPECT_NEAR(b->nll_forward(y, labels), -(std::log(0.75) + std::log(0.5)) / 2, 1e-14);
  b->nll_backward(labels, 0.5, d);
  expect_values(d, {0, -0.5, -0.5, 0}, "dlogp");
  // log-softmax backward: dx = dy - exp(y) sum(dy); with dy = (1, 1) per row, dx = 1 - 2 p.
  Tensor dy = make({2, 2}, {1, 1, 1, 1});
  b->log_softmax_backward(y, dy, dy);  // dx aliasing dy
  expect_values(dy, {0.5, -0.5, 0, 0}, "log_softmax backward in place");
  labels.set(1, 2);
  std::string what = invalid_argument_of([&] { b->nll_forward(y, labels); });
  EXPECT_NE(what.find("label 2 of row 1"), std::string::npos) << what;
}

TEST_F(ReferenceOps, Activations) {
  Tensor x = make({4}, {-1, 0, 0.5, 2}), y({4}, DType::f64);
  b->activation_forward(Activation::relu, x, y);
  expect_values(y, {0, 0, 0.5, 2}, "relu");
  b->activation_forward(Activation::sigmoid, x, y);
  expect_values(y, {1 / (1 + std::exp(1.0)), 0.5, 1 / (1 + std::exp(-0.5)), 1 / (1 + std::exp(-2.0))}, "sigmoid");
  Tensor dx({4}, DType::f64);
  b->activation_backward(Activation::sigmoid, y, make({4}, {1, 1, 1, 1}), dx);
  EXPECT_NEAR(dx.at(1), 0.25, 1e-15);
  b->activation_forward(Activation::tanh, x, x);  // in place
  expect_values(x, {std::tanh(-1.0), 0, std::tanh(0.5), std::tanh(2.0)}, "tanh in place");
  Tensor part = dx.slice0(0, 3);  // a view: backward writes through it
  b->activation_backward(Activation::relu, make({3}, {0, 1, 2}), make({3}, {5, 6, 7}), part);
  expect_values(dx.slice0(0, 3), {0, 6, 7}, "relu backward");
}

// GELU at known points: exact GELU(x) = x Phi(x) with the standard normal CDF (Phi(1) =
// 0.841344746...), PyTorch's tanh form, and the derivatives at 0 (1/2) and 1 (Phi(1) + phi(1)).
TEST_F(ReferenceOps, GeluAtKnownPoints) {
  Tensor x = make({4}, {1, -1, 2, -0.5}), y({4}, DType::f64);
  b->gelu_forward(x, y, GeluApprox::exact);
  expect_values(y, {0.8413447460685429, -0.15865525393145707, 1.9544997361036416, -0.15426876936299344}, "exact");
  b->gelu_forward(x, y, GeluApprox::tanh);
  expect_values(y, {0.8411919906082768, -0.15880800939172324, 1.954597694087775, -0.15428599017485606}, "tanh");
  Tensor at = make({2}, {0, 1}), dx({2}, DType::f64);
  b->gelu_backward(at, make({2}, {1, 1}), dx, GeluApprox::exact);
  expect_values(dx, {0.5, 0.8413447460685429 + 0.24197072451914337}, "exact derivative");
  b->gelu_backward(at, make({2}, {1, 1}), dx, GeluApprox::tanh);
  EXPECT_NEAR(dx.at(0), 0.5, 1e-15);
  EXPECT_EQ(parse_gelu_approx("tanh"), GeluApprox::tanh);
  EXPECT_NE(invalid_argument_of([] { parse_gelu_approx("none"); }).find("expected exact or tanh"), std::string::npos);
}

// Batch statistics per channel of [N,C,H,W] (channel 0 holds 1..4, channel 1 10..40), the
// normalised output with scale and shift, inference with given statistics, and the backward's
// sums: with dy = 1, dbeta = M, dgamma = sum x_hat = 0 and dx = 0.
TEST_F(ReferenceOps, BatchNormByHand) {
  Tensor x = make({2, 2, 1, 2}, {1, 2, 10, 20, 3, 4, 30, 40}), y({2, 2, 1, 2}, DType::f64);
  Tensor mean({2}, DType::f64), var({2}, DType::f64), gamma = make({2}, {2, 1}), beta = make({2}, {1, 0});
  const double eps = 1e-5;
  b->batch_norm_forward_training(x, gamma, beta, eps, y, mean, var);
  expect_values(mean, {2.5, 25}, "mean");
  expect_values(var, {1.25, 125}, "biased var");
  const double s0 = std::sqrt(1.25 + eps), s1 = std::sqrt(125 + eps);
  expect_values(y, {2 * -1.5 / s0 + 1, 2 * -0.5 / s0 + 1, -15 / s1, -5 / s1, 2 * 0.5 / s0 + 1, 2 * 1.5 / s0 + 1, 5 / s1,
                    15 / s1},
                "y");
  Tensor plain({2, 2, 1, 2}, DType::f64);
  b->batch_norm_forward_inference(x, Tensor(), Tensor(), make({2}, {0, 10}), make({2}, {4 - eps, 1 - eps}), eps, plain);
  expect_values(plain, {0.5, 1, 0, 10, 1.5, 2, 20, 30}, "inference, no affine");
  Tensor dx({2, 2, 1, 2}, DType::f64), dgamma({2}, DType::f64), dbeta({2}, DType::f64);
  b->batch_norm_backward(x, make({2, 2, 1, 2}, {1, 1, 1, 1, 1, 1, 1, 1}), gamma, mean, var, eps, dx, dgamma, dbeta);
  expect_values(dbeta, {4, 4}, "dbeta");
  expect_values(dgamma, {0, 0}, "dgamma");
  expect_values(dx, {0, 0, 0, 0, 0, 0, 0, 0}, "dx");
}

TEST_F(ReferenceOps, DropoutMaskIsTheCounterFormula) {
  for (DType dt : {DType::f32, DType::f64}) {
    Tensor mask({4000}, dt);
    b->dropout_mask(mask, 0.8, 42);
    std::int64_t kept = 0;
    for (std::int64_t i = 0; i < mask.numel(); ++i) {
      double want = counter_uniform(42, static_cast<std::uint64_t>(i)) < 0.8 ? 1 / 0.8 : 0.0;
      ASSERT_EQ(mask.at(i), dt == DType::f32 ? double(float(want)) : want) << i;
      kept += mask.at(i) != 0;
    }
    EXPECT_NEAR(double(kept) / 4000, 0.8, 0.03);
  }
  Tensor a({64}), c({64});
  b->dropout_mask(a, 0.5, 1);
  b->dropout_mask(c, 0.5, 2);
  bool differ = false;
  for (std::int64_t i = 0; i < 64; ++i) differ |= a.at(i) != c.at(i);
  EXPECT_TRUE(differ) << "two seeds gave the same mask";
  b->dropout_mask(a, 1.0, 3);
  for (std::int64_t i = 0; i < 64; ++i) EXPECT_EQ(a.at(i), 1.0);
  EXPECT_NE(invalid_argument_of([&] { b->dropout_mask(a, 0.0, 3); }).find("keep probability 0"), std::string::npos);
}

TEST_F(ReferenceOps, ElementwiseAndReductions) {
  Tensor x = make({3}, {1, -2, 3}), y = make({3}, {10, 20, 30}), out({3}, DType::f64);
  b->axpy(2, x, y);
  expect_values(y, {12, 16, 36}, "axpy");
  b->axpby(1, x, -1, y);
  expect_values(y, {-11, -18, -33}, "axpby");
  b->add(x, y, out);
  expect_values(out, {-10, -20, -30}, "add");
  b->mul(x, x, x);  // in place
  expect_values(x, {1, 4, 9}, "mul in place");
  b->scale(x, 0.5);
  expect_values(x, {0.5, 2, 4.5}, "scale");
  EXPECT_DOUBLE_EQ(b->sum(x), 7.0);
  EXPECT_DOUBLE_EQ(b->sum_squares(x), 0.25 + 4 + 20.25);
  b->fill(out, -1.5);
  expect_values(out, {-1.5, -1.5, -1.5}, "fill");
  b->copy(x, out);
  expect_values(out, {0.5, 2, 4.5}, "copy");
  Tensor labels({2}, DType::i32), labels_copy({2}, DType::i32);
  labels.set(1, 7);
  b->copy(labels, labels_copy);
  EXPECT_EQ(labels_copy.at(1), 7.0);
  Tensor rows = make({2, 3}, {1, 3, 3, -1, -2, -1}), best({2}, DType::i32);
  b->argmax_rows(rows, best);
  EXPECT_EQ(best.at(0), 1.0);  // ties: the lowest index
  EXPECT_EQ(best.at(1), 0.0);
  Tensor planes = make({2, 2, 1, 2}, {1, 2, 3, 4, 5, 6, 7, 8}), bias = make({2}, {10, 100}), db({2}, DType::f64);
  b->bias_add(planes, bias);
  expect_values(planes, {11, 12, 103, 104, 15, 16, 107, 108}, "bias_add");
  b->bias_backward(planes, db);
  expect_values(db, {11 + 12 + 15 + 16, 103 + 104 + 107 + 108}, "bias_backward");
  std::string what = invalid_argument_of([&] { b->add(x, make({4}, {1, 2, 3, 4}), out); });
  EXPECT_NE(what.find("reference add: b is f64[4] with 4 elements, expected 3"), std::string::npos) << what;
}

// Two samples, parts of 2 and 1 channels of 2 elements each: per sample, the first part's 4
// values, then the second's 2.
TEST_F(ReferenceOps, ConcatAlongChannels) {
  Tensor a = make({2, 2, 1, 2}, {1, 2, 3, 4, 5, 6, 7, 8}), c = make({2, 1, 1, 2}, {-1, -2, -3, -4});
  Tensor y({2, 3, 1, 2}, DType::f64);
  b->concat_forward({&a, &c}, y);
  expect_values(y, {1, 2, 3, 4, -1, -2, 5, 6, 7, 8, -3, -4}, "concat_forward");
  Tensor da = make({2, 2, 1, 2}, {9, 9, 9, 9, 9, 9, 9, 9}), dc = make({2, 1, 1, 2}, {9, 9, 9, 9});
  Tensor dy = make({2, 3, 1, 2}, {10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21});
  b->concat_backward(dy, {&da, &dc});  // overwritten, not accumulated
  expect_values(da, {10, 11, 12, 13, 16, 17, 18, 19}, "concat_backward dxs[0]");
  expect_values(dc, {14, 15, 20, 21}, "concat_backward dxs[1]");
  Tensor rows = make({2, 1}, {1, 2}), y2({2, 2}, DType::f64);  // [N, C]: a column each
  b->concat_forward({&rows, &rows}, y2);
  expect_values(y2, {1, 1, 2, 2}, "concat_forward of [N, C]");
}

TEST_F(ReferenceOps, EntryChecksNameOpArgumentAndShapes) {
  Tensor x({2, 3, 5, 5}), w({4, 3, 3, 3}), y({2, 4, 4, 4});
  std::string what = invalid_argument_of([&] { b->conv2d_forward(x, w, Tensor(), y, {}); });
  EXPECT_NE(what.find("reference conv2d_forward: y is f32[2, 4, 4, 4], expected shape [2, 4, 3, 3]"), std::string::npos)
      << what;
  Tensor wd({4, 3, 3, 3}, DType::f64);
  what = invalid_argument_of([&] { b->conv2d_forward(x, wd, Tensor(), y, {}); });
  EXPECT_NE(what.find("w is f64[4, 3, 3, 3], expected dtype f32"), std::string::npos) << what;
  Tensor labels({2}, DType::i32);
  what = invalid_argument_of([&] { b->activation_forward(Activation::relu, labels, labels); });
  EXPECT_NE(what.find("x is i32[2], expected f32 or f64"), std::string::npos) << what;
  what = invalid_argument_of([&] { b->linear_forward(x, Tensor({4, 75}), Tensor(), y); });
  EXPECT_NE(what.find("expected 2 dimensions"), std::string::npos) << what;
  what = invalid_argument_of([&] { b->sum(Tensor()); });
  EXPECT_NE(what.find("is empty"), std::string::npos) << what;
  what = invalid_argument_of([&] {
    Tensor a({3}), g({3}), h({4});
    b->caffe_sgd_update(a, g, h, {});
  });
  EXPECT_NE(what.find("history is f32[4], expected shape [3]"), std::string::npos) << what;
}

}  // namespace
}  // namespace ablate::kernels::test
