// The tape of the dynamic strategy in f64 on `reference`: gradients through backward() equal
// central finite differences for a value used twice, a branch summed, a parameter shared by
// two ops, a small network of every op and batch normalisation with GELU; a no-grad scope
// records nothing; gradients of leaves accumulate until zero_grad; a graph runs backward once.
#include <stdexcept>

#include <gtest/gtest.h>

#include "dynamic_test_util.h"
#include "graph/dynamic/node.h"
#include "graph/dynamic/ops.h"
#include "graph_test_util.h"
#include "models/layer_params.h"

namespace ablate::graph::dynamic {
namespace {

using testing::check_gradients;
using testing::Tape;

TEST(DynamicTape, ValueUsedTwiceGetsBothGradients) {
  Tape t;
  Variable x = t.leaf({2, 3}, 1);
  // d/dx sum(x * x) = 2x: both operands of mul are x.
  auto square = [&] { return sum(mul(x, x)); };
  backward(square());
  for (std::int64_t i = 0; i < 6; ++i) EXPECT_DOUBLE_EQ(x.grad().at(i), 2 * x.value().at(i));
  check_gradients(t.context, square, {x}, {"x"});
}

TEST(DynamicTape, BranchesOfOneValueAreSummed) {
  Tape t;
  Variable x = t.leaf({3, 4}, 2);
  // a feeds two branches whose results are added, then x is used again at the end.
  auto branches = [&] {
    Variable a = tanh(x);
    Variable b = add(relu(a), sigmoid(a));
    return sum(mul(add(b, x), b));
  };
  check_gradients(t.context, branches, {x}, {"x"});
}

TEST(DynamicTape, SharedParameterAccumulatesOverItsUses) {
  Tape t;
  Variable x = t.leaf({2, 4}, 3), w = t.leaf({4, 4}, 4), b = t.leaf({4}, 5);
  kernels::Tensor labels({2}, kernels::DType::i32);
  labels.set(0, 1);
  labels.set(1, 3);
  // w used by two linear layers (a tied weight), the bias by a linear and a bias_add.
  auto tied = [&] {
    Variable h = tanh(linear(x, w, b));
    return softmax_cross_entropy(bias_add(linear(h, w, Variable()), b), labels);
  };
  check_gradients(t.context, tied, {x, w, b}, {"x", "w", "b"});
}

TEST(DynamicTape, EveryOpOfASmallNetwork) {
  Tape t;
  Variable x = t.leaf({2, 2, 7, 7}, 6);
  Variable w1 = t.leaf({3, 2, 3, 3}, 7), b1 = t.leaf({3}, 8), b2 = t.leaf({3}, 9);
  Variable w3 = t.leaf({4, 12}, 10), b3 = t.leaf({4}, 11);
  kernels::Tensor labels({2}, kernels::DType::i32);
  labels.set(0, 2);
  labels.set(1, 0);
  kernels::Conv2dParams conv;
  conv.pad_top = conv.pad_left = conv.pad_bottom = conv.pad_right = 1;
  // conv 3x3 pad 1 -> [2,3,7,7]; max pool 3/2 Caffe ceil -> [2,3,3,3]; bias; LRN;
  // avg pool 2/2 TF SAME -> [2,3,2,2]; dropout with a fixed mask; flatten; linear; log_softmax; nll
  const auto max_pool = kernels::make_pool2d_params(kernels::PoolKind::max, 3, 2, 0, kernels::PoolPadding::caffe_ceil, 7, 7);
  const auto avg_pool = kernels::make_pool2d_params(kernels::PoolKind::avg, 2, 2, 0, kernels::PoolPadding::tf_same, 3, 3);
  kernels::LrnParams lrn_params;
  lrn_params.size = 3;
  lrn_params.alpha = 0.5;
  kernels::Tensor mask({2, 3, 2, 2}, kernels::DType::f64);
  t.backend->dropout_mask(mask, 0.6, 123);
  auto network = [&] {
    Variable h = relu(conv2d(x, w1, b1, conv));
    h = lrn(bias_add(pool2d(h, max_pool), b2), lrn_params);
    h = dropout(sigmoid(pool2d(h, avg_pool)), mask);
    return nll_loss(log_softmax(linear(flatten(h), w3, b3)), labels);
  };
  check_gradients(t.context, network, {x, w1, b1, b2, w3, b3}, {"x", "w1", "b1", "b2", "w3", "b3"});
}

// batch_norm on planes with a weight and bias, then on features without; GELU in both forms
// through the activation op with the backward from x.
TEST(DynamicTape, BatchNormAndGelu) {
  Tape t;
  Variable x = t.leaf({3, 2, 4, 4}, 21), gamma = t.leaf({2}, 22), beta = t.leaf({2}, 23);
  Variable w = t.leaf({4, 32}, 24);
  kernels::Tensor labels({3}, kernels::DType::i32);
  labels.set(0, 1);
  labels.set(1, 3);
  labels.set(2, 0);
  auto network = [&] {
    kernels::Tensor mean, var;
    Variable h = activation(batch_norm(x, gamma, beta, 1e-5, mean, var), kernels::Activation::gelu, true);
    h = batch_norm(linear(flatten(h), w, Variable()), Variable(), Variable(), 1e-3, mean, var);
    return softmax_cross_entropy(activation(h, kernels::Activation::gelu_tanh, true), labels);
  };
  check_gradients(t.context, network, {x, gamma, beta, w}, {"x", "gamma", "beta", "w"});
  kernels::Tensor mean, var;  // the batch statistics the op hands out: per channel of x
  batch_norm(x, gamma, beta, 1e-5, mean, var);
  double sum = 0;
  for (std::int64_t n = 0; n < 3; ++n)
    for (std::int64_t k = 0; k < 16; ++k) sum += x.value().at(n * 32 + 16 + k);
  EXPECT_NEAR(mean.at(1), sum / 48, 1e-15);
}

TEST(DynamicTape, ConnectionTableConvolution) {
  Tape t;
  models::LayerSpec layer;
  layer.name = "cmap";
  layer.type = "conv_map";
  layer.params = {{"outputs", "4"}, {"kernel", "3"}, {"fan_in", "2"}};
  const auto pairs = models::connection_table(layer, 3);
  kernels::Tensor table({4 * 2, 2}, kernels::DType::i32);
  for (std::size_t i = 0; i < pairs.size(); ++i) table.set(static_cast<std::int64_t>(i), pairs[i]);
  Variable x = t.leaf({2, 3, 5, 5}, 12), w = t.leaf({8, 3, 3}, 13), b = t.leaf({4}, 14);
  auto f = [&] { return sum(mul(conv2d_map(x, w, b, table, 4, {}), conv2d_map(x, w, b, table, 4, {}))); };
  // The reference backend implements conv2d_map: a "not implemented" is a failure here, not a skip.
  check_gradients(t.context, f, {x, w, b}, {"x", "w", "b"});
}

TEST(DynamicTape, NoGradScopeRecordsNothing) {
  Tape t;
  Variable x = t.leaf({2, 3}, 15), w = t.leaf({4, 3}, 16);
  Variable y;
  {
    NoGradGuard no_grad(t.context);
    EXPECT_FALSE(t.context.grad_enabled());
    y = sum(mul(relu(linear(x, w, Variable())), relu(linear(x, w, Variable()))));
    EXPECT_FALSE(y.requires_grad());
    EXPECT_TRUE(y.is_leaf());
    EXPECT_EQ(y.node(), nullptr);
    {
      NoGradGuard nested(t.context);
    }
    EXPECT_FALSE(t.context.grad_enabled()) << "a nested scope restores the outer state";
  }
  EXPECT_TRUE(t.context.grad_enabled());
  graph::testing::expect_error<std::invalid_argument>([&] { backward(y); }, {"does not require a gradient"});
  EXPECT_TRUE(x.grad().empty());
  EXPECT_TRUE(w.grad().empty());
  // After the scope the same ops record again, and the value is the same.
  Variable z = sum(mul(relu(linear(x, w, Variable())), relu(linear(x, w, Variable()))));
  ASSERT_NE(z.node(), nullptr);
  EXPECT_STREQ(z.node()->name(), "sum");
  EXPECT_EQ(z.value().at(0), y.value().at(0));
}

TEST(DynamicTape, LeafGradientsAccumulateUntilZeroed) {
  Tape t;
  Variable x = t.leaf({5}, 17);
  Variable constant = t.leaf({5}, 18, /*requires_grad=*/false);
  backward(sum(mul(x, constant)));
  backward(sum(mul(x, constant)), 0.5);
  EXPECT_TRUE(constant.grad().empty()) << "a leaf that requires no gradient gets none";
  for (std::int64_t i = 0; i < 5; ++i) EXPECT_DOUBLE_EQ(x.grad().at(i), 1.5 * constant.value().at(i));
  x.zero_grad();
  for (std::int64_t i = 0; i < 5; ++i) EXPECT_EQ(x.grad().at(i), 0.0);
  backward(sum(mul(x, constant)), 2.0);
  for (std::int64_t i = 0; i < 5; ++i) EXPECT_DOUBLE_EQ(x.grad().at(i), 2.0 * constant.value().at(i));
}

TEST(DynamicTape, BackwardTwiceThroughOneGraphIsAnError) {
  Tape t;
  Variable x = t.leaf({3}, 19);
  Variable loss = sum(tanh(x));
  backward(loss);
  graph::testing::expect_error<std::logic_error>([&] { backward(loss); }, {"a second time"});
  graph::testing::expect_error<std::invalid_argument>([&] { backward(tanh(x)); }, {"expected a scalar"});
}

TEST(DynamicTape, OpsCheckTheirInputs) {
  Tape t;
  Variable x = t.leaf({2, 3}, 20), w = t.leaf({4, 5}, 21);
  graph::testing::expect_error<std::invalid_argument>([&] { linear(x, w, Variable()); },
                                                      {"linear", "weight", "f64[4, 5]", "[O, 3]"});
  graph::testing::expect_error<std::invalid_argument>([&] { add(x, w); }, {"add", "f64[2, 3]", "f64[4, 5]"});
  graph::testing::expect_error<std::invalid_argument>([&] { reshape(x, {4}); }, {"reshape", "[4]"});
  graph::testing::expect_error<std::invalid_argument>([&] { relu(Variable()); }, {"relu", "undefined"});
  Tape other;
  Variable elsewhere = other.leaf({2, 3}, 22);
  graph::testing::expect_error<std::invalid_argument>([&] { add(x, elsewhere); }, {"different tape contexts"});
}

}  // namespace
}  // namespace ablate::graph::dynamic
