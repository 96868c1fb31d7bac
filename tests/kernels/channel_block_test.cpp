// Channel-blocked tensors (kernels/tensor.h, nChw{B}c): the view and its checks, the
// conversion both ways (host loops and oneDNN's reorder) against the layout's formula, the
// layout rule of every op call (kernels/contract/layout_check.h: an op that would read a blocked
// tensor as NCHW refuses it, naming it), and oneDNN's convolutions and batch normalisation on
// blocked tensors against the same ops on plain ones.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/channel_blocks.h"
#include "kernels/cpu/lrn_blocked.h"
#include "kernels/cpu/pool2d_blocked.h"
#include "kernels/registry.h"
#include "test_tensors.h"

namespace ablate::kernels {
namespace {

using test::all_near;
using test::invalid_argument_of;
using test::random_tensor;
using test::Rng;

// A blocked copy of plain t made by the backend's copy.
Tensor blocked_copy(Backend& b, const Tensor& t, int block) {
  Tensor out = Tensor(t.shape(), t.dtype()).with_channel_block(block);
  b.copy(t, out);
  return out;
}
Tensor plain_copy(Backend& b, const Tensor& t) {
  Tensor out(t.shape(), t.dtype());
  b.copy(t, out);
  return out;
}
// The same by the host loops (channel_blocks.h), for the loop tests that take no backend.
Tensor in_block(const Tensor& t, int block) {
  Tensor out = Tensor(t.shape(), t.dtype()).with_channel_block(block);
  convert_channel_layout(t, out, 1);
  return out;
}
Tensor in_plain(const Tensor& t) {
  Tensor out(t.shape(), t.dtype());
  convert_channel_layout(t, out, 1);
  return out;
}

TEST(ChannelBlock, TheViewIsChecked) {
  Tensor t({2, 32, 3, 5});
  const Tensor b = t.with_channel_block(16);
  EXPECT_TRUE(b.same_storage(t));
  EXPECT_EQ(b.channel_block(), 16);
  EXPECT_EQ(b.describe(), "f32[2, 32, 3, 5] nChw16c");
  EXPECT_EQ(b.reshaped({2, 32, 3, 5}).channel_block(), 16);
  EXPECT_THROW(b.reshaped({2, 480}), std::invalid_argument);
  EXPECT_THROW(Tensor({2, 24, 3, 5}).with_channel_block(16), std::invalid_argument);
  EXPECT_THROW(Tensor({2, 32, 15}).with_channel_block(16), std::invalid_argument);
  Tensor other({2, 32, 3, 5});
  EXPECT_THROW(other.copy_from(b), std::invalid_argument);
  EXPECT_EQ(b.clone().channel_block(), 16);
  EXPECT_FALSE(b.channels_last());
  // one block of all the channels is NHWC: element (n, c, h, w) at ((n * H + h) * W + w) * C + c
  Tensor nchw({2, 20, 3, 5});
  for (std::int64_t i = 0; i < nchw.numel(); ++i) nchw.data<float>()[i] = static_cast<float>(i);
  Tensor nhwc = Tensor(nchw.shape()).with_channel_block(20);
  EXPECT_TRUE(nhwc.channels_last());
  EXPECT_EQ(nhwc.describe(), "f32[2, 20, 3, 5] nChw20c (NHWC)");
  convert_channel_layout(nchw, nhwc, 1);
  EXPECT_EQ(nhwc.data<float>()[((1 * 3 + 2) * 5 + 4) * 20 + 7], nchw.data<float>()[((1 * 20 + 7) * 3 + 2) * 5 + 4]);
}

// Element (n, c, h, w) of the blocked copy sits at (((n * C/B + c/B) * H + h) * W + w) * B + c % B,
// and converting back gives the plain tensor exactly; on every CPU backend's copy.
TEST(ChannelBlock, ConversionFollowsTheLayoutFormulaBothWays) {
  Rng rng(7);
  for (const char* name : {"reference", "openblas", "onednn"}) {
    SCOPED_TRACE(name);
    auto backend = make_backend(name, 2);
    for (DType dtype : {DType::f32, DType::f64})
      for (int block : {8, 16}) {
        const Tensor t = random_tensor({3, 32, 4, 5}, dtype, rng);
        const Tensor b = blocked_copy(*backend, t, block);
        const std::int64_t C = 32, H = 4, W = 5;
        for (std::int64_t n = 0; n < 3; ++n)
          for (std::int64_t c = 0; c < C; ++c)
            for (std::int64_t i = 0; i < H * W; ++i) {
              const std::int64_t at = ((n * (C / block) + c / block) * H * W + i) * block + c % block;
              ASSERT_EQ(b.at(at), t.at((n * C + c) * H * W + i)) << n << "," << c << "," << i;
            }
        const Tensor back = plain_copy(*backend, b);
        EXPECT_TRUE(all_near(back, t, 0.0));
        Tensor b8 = Tensor(t.shape(), dtype).with_channel_block(block == 8 ? 16 : 8);  // block to block
        backend->copy(b, b8);
        EXPECT_TRUE(all_near(plain_copy(*backend, b8), t, 0.0));
      }
  }
}

TEST(ChannelBlock, AnOpThatReadsNchwRefusesABlockedTensor) {
  auto backend = make_backend("reference");
  Rng rng(3);
  const Tensor plain = random_tensor({2, 16, 4, 4}, DType::f32, rng);
  const Tensor blocked = blocked_copy(*backend, plain, 16);
  Tensor gelu = Tensor(plain.shape(), DType::f32).with_channel_block(16);
  EXPECT_EQ(invalid_argument_of([&] { backend->gelu_forward(blocked, gelu, GeluApprox::exact); }),
            "reference gelu_forward: takes plain NCHW tensors, not the channel-blocked f32[2, 16, 4, 4] nChw16c (NHWC)");
  Tensor sum({2, 16, 4, 4});
  EXPECT_NE(invalid_argument_of([&] { backend->add(blocked, plain, sum); }).find("the layouts of"), std::string::npos);
  Tensor w({16, 16, 3, 3}), out({2, 16, 2, 2});
  EXPECT_NE(invalid_argument_of([&] { backend->conv2d_forward(blocked, w, Tensor(), out, {}); })
                .find("is not a layout this backend runs (plain only)"),
            std::string::npos);
  // elementwise ops take it when every operand has its layout
  Tensor blocked_sum = Tensor(plain.shape(), DType::f32).with_channel_block(16);
  backend->add(blocked, blocked, blocked_sum);
  Tensor twice(plain.shape());
  backend->add(plain, plain, twice);
  EXPECT_TRUE(all_near(plain_copy(*backend, blocked_sum), twice, 0.0));
}

// oneDNN on blocked tensors against itself on plain ones: convolution (forward with bias and a
// ReLU epilogue, backward data, backward weights with bias), batch normalisation (training
// forward, inference forward, backward with and without gamma and beta), pooling (max and
// average: blocked on ablate's loops, plain on the primitive or the shared loop), a channel bias and its
// gradient (the shared loops) and LRN.
class OnednnBlocked : public ::testing::Test {
 protected:
  void SetUp() override {
    backend_ = make_backend("onednn", 2);
    block_ = backend_->channel_block(DType::f32);
    if (block_ == 0) GTEST_SKIP() << "onednn has no blocked layout here";
  }
  Tensor blocked(const Tensor& t) { return blocked_copy(*backend_, t, block_); }
  Tensor plain(const Tensor& t) { return plain_copy(*backend_, t); }
  Tensor empty_blocked(const Shape& s) { return Tensor(s, DType::f32).with_channel_block(block_); }
  std::unique_ptr<Backend> backend_;
  int block_ = 0;
  Rng rng_{11};
};

TEST_F(OnednnBlocked, ConvolutionMatchesThePlainLayout) {
  EXPECT_EQ(backend_->channel_block(DType::f64), 0);
  const Tensor x = random_tensor({4, 32, 7, 6}, DType::f32, rng_), w = random_tensor({16, 32, 3, 3}, DType::f32, rng_);
  const Tensor bias = random_tensor({16}, DType::f32, rng_);
  Conv2dParams p;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
  p.activation = Activation::relu;
  Tensor y({4, 16, 7, 6}), yb = empty_blocked({4, 16, 7, 6});
  backend_->conv2d_forward(x, w, bias, y, p);
  backend_->conv2d_forward(blocked(x), w, bias, yb, p);
  EXPECT_TRUE(all_near(plain(yb), y, 1e-5));
  Tensor y_from_plain = empty_blocked({4, 16, 7, 6});  // plain in, blocked out (a network's stem)
  backend_->conv2d_forward(x, w, bias, y_from_plain, p);
  EXPECT_TRUE(all_near(plain(y_from_plain), y, 1e-5));

  p.activation.reset();
  const Tensor dy = random_tensor({4, 16, 7, 6}, DType::f32, rng_);
  Tensor dx({4, 32, 7, 6}), dxb = empty_blocked({4, 32, 7, 6});
  backend_->conv2d_backward_data(dy, w, dx, p);
  backend_->conv2d_backward_data(blocked(dy), w, dxb, p);
  EXPECT_TRUE(all_near(plain(dxb), dx, 1e-5));
  Tensor dw(w.shape()), dwb(w.shape()), db({16}), dbb({16});
  backend_->conv2d_backward_weights(x, dy, dw, db, p);
  backend_->conv2d_backward_weights(blocked(x), blocked(dy), dwb, dbb, p);
  EXPECT_TRUE(all_near(dwb, dw, 1e-4));
  EXPECT_TRUE(all_near(dbb, db, 1e-4));
}

TEST_F(OnednnBlocked, BatchNormMatchesThePlainLoops) {
  const Tensor x = random_tensor({4, 32, 5, 3}, DType::f32, rng_, -2.0, 3.0);
  const Tensor gamma = random_tensor({32}, DType::f32, rng_, 0.5, 1.5), beta = random_tensor({32}, DType::f32, rng_);
  const double eps = 1e-5;
  for (bool affine : {true, false}) {
    SCOPED_TRACE(affine ? "affine" : "no gamma, beta");
    const Tensor g = affine ? gamma : Tensor(), b = affine ? beta : Tensor();
    Tensor y(x.shape()), mean({32}), var({32}), yb = empty_blocked(x.shape()), meanb({32}), varb({32});
    backend_->batch_norm_forward_training(x, g, b, eps, y, mean, var);
    backend_->batch_norm_forward_training(blocked(x), g, b, eps, yb, meanb, varb);
    EXPECT_TRUE(all_near(plain(yb), y, 1e-5));
    EXPECT_TRUE(all_near(meanb, mean, 1e-6));
    EXPECT_TRUE(all_near(varb, var, 1e-5));

    Tensor yi(x.shape()), yib = empty_blocked(x.shape());
    backend_->batch_norm_forward_inference(x, g, b, mean, var, eps, yi);
    backend_->batch_norm_forward_inference(blocked(x), g, b, mean, var, eps, yib);
    EXPECT_TRUE(all_near(plain(yib), yi, 1e-5));

    const Tensor dy = random_tensor(x.shape(), DType::f32, rng_);
    Tensor dx(x.shape()), dxb = empty_blocked(x.shape());
    Tensor dg = affine ? Tensor({32}) : Tensor(), dbt = affine ? Tensor({32}) : Tensor();
    Tensor dgb = affine ? Tensor({32}) : Tensor(), dbb = affine ? Tensor({32}) : Tensor();
    backend_->batch_norm_backward(x, dy, g, mean, var, eps, dx, dg, dbt);
    backend_->batch_norm_backward(blocked(x), blocked(dy), g, mean, var, eps, dxb, dgb, dbb);
    EXPECT_TRUE(all_near(plain(dxb), dx, 1e-4));
    if (affine) {
      EXPECT_TRUE(all_near(dgb, dg, 1e-4));
      EXPECT_TRUE(all_near(dbb, dbt, 1e-4));
    }
  }
}

// Only a convolution takes its activations in different layouts; batch norm and pooling refuse a
// blocked input with a plain output (they would write blocked values into it), naming both.
TEST_F(OnednnBlocked, OneLayoutPerOpExceptTheConvolution) {
  const Tensor x = random_tensor({2, 32, 4, 4}, DType::f32, rng_);
  Tensor y(x.shape()), mean({32}), var({32});
  const std::string bn = invalid_argument_of([&] { backend_->batch_norm_forward_training(blocked(x), Tensor(), Tensor(), 1e-5, y, mean, var); });
  EXPECT_NE(bn.find("onednn batch_norm_forward_training: the layouts of f32[2, 32, 4, 4] nChw"), std::string::npos) << bn;
  EXPECT_NE(bn.find("and f32[2, 32, 4, 4] differ: this op runs one layout"), std::string::npos) << bn;
  const Pool2dParams p = make_pool2d_params(PoolKind::max, 2, 2, 0, PoolPadding::valid, 4, 4);
  Tensor pooled = empty_blocked({2, 32, 2, 2}), ws;
  EXPECT_NE(invalid_argument_of([&] { backend_->pool2d_forward(x, pooled, ws, p); }).find("this op runs one layout"),
            std::string::npos);
}

// The blocked pooling loops (kernels/cpu/pool2d_blocked.h) against the NCHW loops of a CPU
// backend (eigen's are CpuBackend's), for both blocks (nChw8c as AVX2's, nChw16c as AVX-512's,
// whatever this CPU), Caffe's and TF's windows (with a window wholly in the padding), max with
// ties under either gradient rule and average: the same values and gradients, element for element.
// 8 and 16: the library's blocks (compile-time lanes); 32: channels-last (NHWC, all 32
// channels one block, lanes known at run time).
TEST(BlockedPoolLoops, MatchTheNchwLoopsForEitherBlockAndChannelsLast) {
  Rng rng(11);
  Tensor x = random_tensor({2, 32, 7, 7}, DType::f32, rng);
  for (std::int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = std::round(x.data<float>()[i] * 2) / 2;  // ties
  auto plain_backend = make_backend("eigen", 2);
  const std::vector<Pool2dParams> cases = {make_pool2d_params(PoolKind::max, 3, 2, 0, PoolPadding::caffe_ceil, 7, 7),
                                           make_pool2d_params(PoolKind::avg, 3, 2, 0, PoolPadding::caffe_ceil, 7, 7),
                                           make_pool2d_params(PoolKind::max, 3, 2, 1, PoolPadding::caffe_ceil, 7, 7),
                                           make_pool2d_params(PoolKind::avg, 3, 2, 0, PoolPadding::tf_same, 7, 7),
                                           make_pool2d_params(PoolKind::max, 2, 2, 1, PoolPadding::caffe_ceil, 7, 7)};
  for (int block : {8, 16, 32})
    for (const Pool2dParams& p : cases)
      for (PoolGradient gradient : {PoolGradient::first, PoolGradient::all}) {
        SCOPED_TRACE("block " + std::to_string(block) + ", " + (p.kind == PoolKind::max ? "max" : "avg") + " " +
                     std::to_string(p.kernel_h) + "/" + std::to_string(p.stride_h) + ", gradient " + pool_gradient_name(gradient));
        plain_backend->set_pool_gradient(gradient);
        const Shape out{2, 32, p.out_h, p.out_w};
        Tensor y(out), ws, dx(x.shape());
        const Tensor dy = random_tensor(out, DType::f32, rng);
        plain_backend->pool2d_forward(x, y, ws, p);
        plain_backend->pool2d_backward(x, y, dy, ws, dx, p);
        const Tensor xb = in_block(x, block), dyb = in_block(dy, block);
        Tensor yb = Tensor(out, DType::f32).with_channel_block(block), wsb, dxb = Tensor(x.shape(), DType::f32).with_channel_block(block);
        cpu::pool2d_blocked_forward(2, xb, yb, wsb, p);
        cpu::pool2d_blocked_backward(2, gradient, xb, yb, dyb, wsb, dxb, p);
        EXPECT_TRUE(all_near(in_plain(yb), y, 1e-6));
        EXPECT_TRUE(all_near(in_plain(dxb), dx, 1e-6));
      }
}

// The blocked LRN loops against the NCHW loops (lrn.cpp): scale, y and dx to rounding, for the library's blocks and channels-last, beta 0.75 (square roots) and not
// (std::pow), sizes 5 and 9 (windows wider than a block of 8), f32 and f64.
TEST(BlockedLrnLoops, MatchTheNchwLoopsForEitherBlockAndChannelsLast) {
  Rng rng(13);
  auto plain_backend = make_backend("eigen", 2);
  for (DType dtype : {DType::f32, DType::f64})
    for (int size : {5, 9})
      for (double beta : {0.75, 0.6})
        for (int block : {8, 16, 32}) {
          SCOPED_TRACE(std::string(dtype_name(dtype)) + ", size " + std::to_string(size) + ", beta " +
                       std::to_string(beta) + ", block " + std::to_string(block));
          LrnParams p;
          p.size = size;
          p.alpha = 0.5;  // large enough that the window sums matter
          p.beta = beta;
          p.k = 1;
          const Tensor x = random_tensor({2, 32, 3, 5}, dtype, rng), dy = random_tensor(x.shape(), dtype, rng);
          Tensor y(x.shape(), dtype), ws, dx(x.shape(), dtype);
          plain_backend->lrn_forward(x, y, ws, p);
          plain_backend->lrn_backward(x, y, dy, ws, dx, p);
          const Tensor xb = in_block(x, block), dyb = in_block(dy, block);
          Tensor yb = in_block(y, block), wsb, dxb = in_block(dx, block);
          cpu::lrn_blocked_forward(2, xb, yb, wsb, p);
          cpu::lrn_blocked_backward(2, xb, yb, dyb, wsb, dxb, p);
          const double tolerance = dtype == DType::f32 ? 1e-6 : 1e-13;
          EXPECT_TRUE(all_near(in_plain(wsb), ws, tolerance)) << "scale";
          EXPECT_TRUE(all_near(in_plain(yb), y, tolerance));
          EXPECT_TRUE(all_near(in_plain(dxb), dx, tolerance));
        }
}

TEST_F(OnednnBlocked, PoolingBiasAndLrnMatchThePlainLayout) {
  const Tensor x = random_tensor({3, 32, 9, 9}, DType::f32, rng_);
  struct Case {
    const char* name;
    Pool2dParams p;
  };
  const std::vector<Case> cases = {
      {"max, caffe ceil", make_pool2d_params(PoolKind::max, 3, 2, 0, PoolPadding::caffe_ceil, 9, 9)},
      {"avg, tf same", make_pool2d_params(PoolKind::avg, 3, 2, 0, PoolPadding::tf_same, 9, 9)},
      {"avg, caffe ceil", make_pool2d_params(PoolKind::avg, 2, 2, 0, PoolPadding::caffe_ceil, 9, 9)},
      {"max, valid, cropped", make_pool2d_params(PoolKind::max, 2, 2, 0, PoolPadding::valid, 9, 9)}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Shape out{3, 32, c.p.out_h, c.p.out_w};
    Tensor y(out), ws, yb = empty_blocked(out), wsb;
    backend_->pool2d_forward(x, y, ws, c.p);
    const Tensor xb = blocked(x);
    backend_->pool2d_forward(xb, yb, wsb, c.p);
    EXPECT_TRUE(all_near(plain(yb), y, 1e-6));
    const Tensor dy = random_tensor(out, DType::f32, rng_);
    Tensor dx(x.shape()), dxb = empty_blocked(x.shape());
    backend_->pool2d_backward(x, y, dy, ws, dx, c.p);
    backend_->pool2d_backward(xb, yb, blocked(dy), wsb, dxb, c.p);
    EXPECT_TRUE(all_near(plain(dxb), dx, 1e-6));
  }
  const Tensor bias = random_tensor({32}, DType::f32, rng_);
  Tensor biased = x.clone(), biased_b = blocked(x);
  backend_->bias_add(biased, bias);
  backend_->bias_add(biased_b, bias);
  EXPECT_TRUE(all_near(plain(biased_b), biased, 0.0));
  Tensor db({32}), dbb({32});
  backend_->bias_backward(x, db);
  backend_->bias_backward(blocked(x), dbb);
  EXPECT_TRUE(all_near(dbb, db, 1e-6));

  LrnParams lrn;
  lrn.size = 5;
  lrn.alpha = 1e-3;
  Tensor y(x.shape()), ws, yb = empty_blocked(x.shape()), wsb;
  backend_->lrn_forward(x, y, ws, lrn);
  const Tensor xb = blocked(x);
  backend_->lrn_forward(xb, yb, wsb, lrn);
  EXPECT_TRUE(all_near(plain(yb), y, 1e-6));
  const Tensor dy = random_tensor(x.shape(), DType::f32, rng_);
  Tensor dx(x.shape()), dxb = empty_blocked(x.shape());
  backend_->lrn_backward(x, y, dy, ws, dx, lrn);
  backend_->lrn_backward(xb, yb, blocked(dy), wsb, dxb, lrn);
  EXPECT_TRUE(all_near(plain(dxb), dx, 1e-6));
}

}  // namespace
}  // namespace ablate::kernels
