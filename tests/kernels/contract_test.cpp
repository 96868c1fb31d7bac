// The Backend contract (kernels/contract/) is checked once for every backend: the same bad
// call gives the same message on each, naming the backend, the op, the argument, what came and
// what was expected, and the call writes nothing.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "kernels/registry.h"
#include "test_tensors.h"

namespace ablate::kernels::test {
namespace {

// Every backend this machine can make (a CUDA build without a device skips cuda).
std::vector<std::unique_ptr<Backend>> backends() {
  std::vector<std::unique_ptr<Backend>> all;
  for (const std::string& name : backend_names()) {
    try {
      all.push_back(make_backend(name));
    } catch (const std::runtime_error&) {
    }
  }
  return all;
}

Tensor ones(const Shape& shape, DType dtype = DType::f32) {
  Tensor t(shape, dtype);
  for (std::int64_t i = 0; i < t.numel(); ++i) t.set(i, 1.0);
  return t;
}

TEST(Contract, OneMessagePerViolationOnEveryBackend) {
  for (auto& b : backends()) {
    const std::string name = b->name();
    Tensor a = ones({2, 3}), bm = ones({3, 2}), wrong({3, 3}, DType::f32);
    EXPECT_EQ(invalid_argument_of([&] { b->gemm(false, false, 1.0, a, bm, 0.0, wrong); }),
              name + " gemm: c is f32[3, 3], expected shape [2, 2]");
    EXPECT_EQ(invalid_argument_of([&] { b->gemm(false, false, 1.0, a, ones({3, 2}, DType::f64), 0.0, wrong); }),
              name + " gemm: b is f64[3, 2], expected dtype f32 like the first input");
    Tensor logp = ones({2, 3}), labels({2}, DType::i32);
    labels.data<std::int32_t>()[1] = 3;
    EXPECT_EQ(invalid_argument_of([&] { b->nll_forward(logp, labels); }),
              name + " nll_forward: labels: label 3 of row 1, expected a class in [0, 3)");
    Tensor x = ones({1, 2, 4, 4}), w = ones({3, 1, 3, 3}), y({1, 3, 2, 2}, DType::f32);
    EXPECT_EQ(invalid_argument_of([&] { b->conv2d_forward(x, w, Tensor(), y, Conv2dParams{}); }),
              name + " conv2d_forward: w f32[3, 1, 3, 3] has 1 input channels, the input x f32[1, 2, 4, 4] has 2");
    Conv2dParams zero_stride;
    zero_stride.stride_h = 0;
    EXPECT_EQ(invalid_argument_of([&] { b->conv2d_forward(x, ones({3, 2, 3, 3}), Tensor(), y, zero_stride); }),
              name + " conv2d_forward: stride 0x1, expected at least 1");
    EXPECT_EQ(invalid_argument_of([&] { b->sum(Tensor()); }), name + " sum: x is empty, expected an allocated tensor");
    EXPECT_EQ(invalid_argument_of([&] { b->dropout_mask(y, 1.5, 7); }), name + " dropout_mask: keep probability 1.5, expected in (0, 1]");
    Tensor ws;
    EXPECT_EQ(invalid_argument_of([&] { b->lrn_forward(x, x, ws, LrnParams{4, 1.0, 0.75, 1.0}); }),
              name + " lrn_forward: size 4, expected an odd number of channels (Caffe's local_size)");
  }
}

TEST(Contract, AttentionOpsShapesAndParameters) {
  for (auto& b : backends()) {
    const std::string name = b->name();
    Tensor q = ones({8, 16, 4}), k = ones({8, 16, 5}), s({8, 16, 16}, DType::f32);
    EXPECT_EQ(invalid_argument_of([&] { b->batched_gemm(false, true, 1.0, q, k, 0.0, s); }),
              name + " batched_gemm: b is f32[8, 16, 5], expected shape [8, 16, 4]");
    Tensor flat = ones({16, 4});
    EXPECT_EQ(invalid_argument_of([&] { b->batched_gemm(false, true, 1.0, flat, flat, 0.0, s); }),
              name + " batched_gemm: a is f32[16, 4], expected 3 dimensions");
    Tensor x = ones({2, 5, 6}), y({2, 5, 6}, DType::f32);
    EXPECT_EQ(invalid_argument_of([&] { b->softmax_last_forward(x, 0.0, y); }),
              name + " softmax_last_forward: scale is 0.000000, expected a finite value > 0");
    Tensor gamma = ones({6}), mean({10}, DType::f32), rstd({10}, DType::f32), none, wrong = ones({5});
    EXPECT_EQ(invalid_argument_of([&] { b->layer_norm_forward(x, gamma, none, 1e-5, y, mean, rstd); }),
              name + " layer_norm_forward: gamma is f32[6] and beta empty, expected both [6] or both empty");
    EXPECT_EQ(invalid_argument_of([&] { b->layer_norm_forward(x, wrong, wrong, 1e-5, y, mean, rstd); }),
              name + " layer_norm_forward: gamma is f32[5], expected shape [6]");
    Tensor short_mean({5}, DType::f32);
    EXPECT_EQ(invalid_argument_of([&] { b->layer_norm_forward(x, gamma, gamma, 1e-5, y, short_mean, rstd); }),
              name + " layer_norm_forward: mean is f32[5], expected shape [10]");
    Tensor t({2, 6, 5}, DType::f32);
    EXPECT_EQ(invalid_argument_of([&] { b->permute(x, {0, 2, 2}, t); }),
              name + " permute: perm is [0, 2, 2], expected a permutation of [0, 3)");
    EXPECT_EQ(invalid_argument_of([&] { b->permute(x, {0, 2}, t); }),
              name + " permute: perm is [0, 2], expected a permutation of [0, 3)");
    EXPECT_EQ(invalid_argument_of([&] { b->permute(x, {0, 1, 2}, t); }),
              name + " permute: y is f32[2, 6, 5], expected shape [2, 5, 6]");
    EXPECT_EQ(invalid_argument_of([&] { b->permute(x, {0, 2, 1}, x); }),
              name + " permute: y is f32[2, 5, 6], expected shape [2, 6, 5]");
    Tensor square = ones({2, 4, 4});
    EXPECT_EQ(invalid_argument_of([&] { b->permute(square, {0, 2, 1}, square); }),
              name + " permute: y shares memory with x, expected separate tensors");
  }
}

TEST(Contract, FusedAttentionShapesBlockAndAliasing) {
  for (auto& b : backends()) {
    const std::string name = b->name();
    Tensor q = ones({6, 17, 4}), k = ones({6, 17, 4}), v = ones({6, 17, 4}), o({6, 17, 4}, DType::f32);
    Tensor lse({6, 17}, DType::f32), short_k = ones({6, 16, 4}), flat = ones({17, 4}), wide_lse({6, 17, 4}, DType::f32);
    EXPECT_EQ(invalid_argument_of([&] { b->fused_attention_forward(q, short_k, v, 0.5, 4, o, lse); }),
              name + " fused_attention_forward: k is f32[6, 16, 4], expected shape [6, 17, 4]");
    EXPECT_EQ(invalid_argument_of([&] { b->fused_attention_forward(flat, flat, flat, 0.5, 4, o, lse); }),
              name + " fused_attention_forward: q is f32[17, 4], expected 3 dimensions");
    EXPECT_EQ(invalid_argument_of([&] { b->fused_attention_forward(q, k, v, 0.5, 0, o, lse); }),
              name + " fused_attention_forward: block is 0, expected >= 1 keys per block");
    EXPECT_EQ(invalid_argument_of([&] { b->fused_attention_forward(q, k, v, -1.0, 4, o, lse); }),
              name + " fused_attention_forward: scale is -1.000000, expected a finite value > 0");
    EXPECT_EQ(invalid_argument_of([&] { b->fused_attention_forward(q, k, v, 0.5, 4, o, wide_lse); }),
              name + " fused_attention_forward: lse is f32[6, 17, 4], expected shape [6, 17]");
    EXPECT_EQ(invalid_argument_of([&] { b->fused_attention_forward(q, k, v, 0.5, 4, v, lse); }),
              name + " fused_attention_forward: o shares memory with v, expected separate tensors");
    Tensor dq({6, 17, 4}, DType::f32), dk({6, 17, 4}, DType::f32);
    EXPECT_EQ(invalid_argument_of([&] { b->fused_attention_backward(q, k, v, o, lse, o, 0.5, 4, dq, dk, dk); }),
              name + " fused_attention_backward: dv shares memory with dk, expected separate tensors");
    EXPECT_EQ(invalid_argument_of([&] { b->fused_attention_backward(q, k, v, o, wide_lse, o, 0.5, 4, dq, dk, v); }),
              name + " fused_attention_backward: lse is f32[6, 17, 4], expected shape [6, 17]");
  }
}

// The convolution fused with its max pooling: the pooling's output shape, its kind, the
// workspace its forward filled, and where the backend does not fuse (cuda, Theano's gradient).
TEST(Contract, ConvMaxPoolShapesKindAndWorkspace) {
  for (auto& b : backends()) {
    if (!b->fuses_conv_max_pool(Pool2dParams{})) continue;
    const std::string name = b->name();
    Tensor x = ones({2, 1, 8, 8}), w = ones({3, 1, 3, 3}), bias = ones({3}), y({2, 3, 3, 3}, DType::f32), ws;
    const Conv2dParams cp;
    const Pool2dParams pp = make_pool2d_params(PoolKind::max, 2, 2, 0, PoolPadding::valid, 6, 6);
    Pool2dParams avg = pp;
    avg.kind = PoolKind::avg;
    Tensor unpooled({2, 3, 6, 6}, DType::f32);
    EXPECT_EQ(invalid_argument_of([&] { b->conv2d_max_pool_forward(x, w, bias, unpooled, ws, cp, pp); }),
              name + " conv2d_max_pool_forward: y is f32[2, 3, 6, 6], expected shape [2, 3, 3, 3]");
    EXPECT_NO_THROW(b->conv2d_max_pool_forward(x, w, bias, y, ws, cp, pp)) << name;
    EXPECT_EQ(invalid_argument_of([&] { b->conv2d_max_pool_forward(x, w, bias, y, ws, cp, avg); }),
              name + " conv2d_max_pool_forward: the pooling after the convolution is not max pooling");
    Tensor dw({3, 1, 3, 3}, DType::f32), db({3}, DType::f32), dy = ones({2, 3, 3, 3}), empty;
    EXPECT_EQ(invalid_argument_of([&] { b->conv2d_max_pool_backward_weights(x, dy, empty, dw, db, cp, pp); }),
              name + " conv2d_max_pool_backward_weights: workspace is empty, expected the argmax that conv2d_max_pool_forward filled");
  }
  BackendOptions all;
  all.pool_gradient = PoolGradient::all;
  auto theano = make_backend("reference", all);
  EXPECT_FALSE(theano->fuses_conv_max_pool(Pool2dParams{}));
  Tensor x = ones({2, 1, 8, 8}), w = ones({3, 1, 3, 3}), y({2, 3, 3, 3}, DType::f32), ws;
  EXPECT_EQ(invalid_argument_of([&] {
              theano->conv2d_max_pool_forward(x, w, Tensor(), y, ws, Conv2dParams{},
                                              make_pool2d_params(PoolKind::max, 2, 2, 0, PoolPadding::valid, 6, 6));
            }),
            "reference conv2d_max_pool_forward: this backend does not fuse a convolution with its max pooling "
            "(fuses_conv_max_pool: a device backend, or the 'all' pool gradient, which compares c with y)");
}

TEST(Contract, ConcatPartsAndWhole) {
  for (auto& b : backends()) {
    const std::string name = b->name();
    Tensor a = ones({2, 3, 4, 4}), c = ones({2, 1, 4, 4}), y({2, 4, 4, 4}, DType::f32);
    EXPECT_EQ(invalid_argument_of([&] { b->concat_forward({}, y); }), name + " concat_forward: xs is empty, expected at least one tensor");
    Tensor wide = ones({2, 1, 4, 5}), other_batch = ones({3, 1, 4, 4}), flat = ones({2, 16});
    EXPECT_EQ(invalid_argument_of([&] { b->concat_forward({&a, &wide}, y); }),
              name + " concat_forward: xs[1] is f32[2, 1, 4, 5], expected shape [2, C, 4, 4] (xs[0]'s dimensions but axis 1)");
    EXPECT_EQ(invalid_argument_of([&] { b->concat_forward({&a, &other_batch}, y); }),
              name + " concat_forward: xs[1] is f32[3, 1, 4, 4], expected shape [2, C, 4, 4] (xs[0]'s dimensions but axis 1)");
    EXPECT_EQ(invalid_argument_of([&] { b->concat_forward({&a, &flat}, y); }),
              name + " concat_forward: xs[1] is f32[2, 16], expected shape [2, C, 4, 4] (xs[0]'s dimensions but axis 1)");
    Tensor c64 = ones({2, 1, 4, 4}, DType::f64);
    EXPECT_EQ(invalid_argument_of([&] { b->concat_forward({&a, &c64}, y); }),
              name + " concat_forward: xs[1] is f64[2, 1, 4, 4], expected dtype f32 like the first input");
    Tensor labels({2, 1, 4, 4}, DType::i32);
    EXPECT_EQ(invalid_argument_of([&] { b->concat_forward({&labels, &c}, y); }),
              name + " concat_forward: xs[0] is i32[2, 1, 4, 4], expected f32 or f64");
    Tensor rank1 = ones({5});
    EXPECT_EQ(invalid_argument_of([&] { b->concat_forward({&rank1}, y); }),
              name + " concat_forward: xs[0] is f32[5], expected rank >= 2 ([N, C, ...])");
    Tensor y5({2, 5, 4, 4}, DType::f32);
    EXPECT_EQ(invalid_argument_of([&] { b->concat_forward({&a, &c}, y5); }),
              name + " concat_forward: y is f32[2, 5, 4, 4], expected shape [2, 4, 4, 4]");
    Tensor y64({2, 4, 4, 4}, DType::f64);
    EXPECT_EQ(invalid_argument_of([&] { b->concat_forward({&a, &c}, y64); }),
              name + " concat_forward: y is f64[2, 4, 4, 4], expected dtype f32 like the first input");
    Tensor y8({1, 8, 4, 4}, DType::f32);  // its halves as the parts: in place is refused
    Tensor first_half = y8.reshaped({2, 4, 4, 4}).slice0(0, 1), second_half = y8.reshaped({2, 4, 4, 4}).slice0(1, 2);
    EXPECT_EQ(invalid_argument_of([&] { b->concat_forward({&first_half, &second_half}, y8); }),
              name + " concat_forward: y shares memory with xs[0], expected separate tensors");

    Tensor dy = ones({2, 4, 4, 4}), da({2, 3, 4, 4}, DType::f32), dc({2, 2, 4, 4}, DType::f32);
    EXPECT_EQ(invalid_argument_of([&] { b->concat_backward(dy, {&da, &dc}); }),
              name + " concat_backward: dxs have 5 channels in all, dy f32[2, 4, 4, 4] has 4");
    EXPECT_EQ(invalid_argument_of([&] { b->concat_backward(dy, {}); }),
              name + " concat_backward: dxs is empty, expected at least one tensor");
    EXPECT_EQ(invalid_argument_of([&] { b->concat_backward(dy, {&da, nullptr}); }),
              name + " concat_backward: dxs[1] is null, expected a tensor");
    Tensor dc64({2, 1, 4, 4}, DType::f64);
    EXPECT_EQ(invalid_argument_of([&] { b->concat_backward(dy, {&da, &dc64}); }),
              name + " concat_backward: dxs[1] is f64[2, 1, 4, 4], expected dtype f32 like the first input");
    EXPECT_EQ(invalid_argument_of([&] { b->concat_backward(dy, {&da, &wide}); }),
              name + " concat_backward: dxs[1] is f32[2, 1, 4, 5], expected shape [2, C, 4, 4] (dy's dimensions but axis 1)");
    // Rejected: nothing written.
    da.set(0, 42.0);
    EXPECT_THROW(b->concat_backward(dy, {&da, &dc}), std::invalid_argument) << name;
    EXPECT_EQ(da.at(0), 42.0) << name;
  }
}

// A rejected call writes nothing: the output keeps what it held.
TEST(Contract, ARejectedCallWritesNothing) {
  for (auto& b : backends()) {
    Tensor x = ones({2, 3}), y({2, 3}, DType::f32), labels({2}, DType::i32);
    y.set(0, 42.0);
    labels.data<std::int32_t>()[0] = -1;
    EXPECT_THROW(b->softmax_xent_forward(x, labels, y), std::invalid_argument) << b->name();
    EXPECT_EQ(y.at(0), 42.0) << b->name();
    EXPECT_EQ(y.at(1), 0.0) << b->name();
  }
}

}  // namespace
}  // namespace ablate::kernels::test
