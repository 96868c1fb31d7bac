// Gradient check of the symbolic differentiation: the gradient graph's values against
// central differences of the loss, in f64 on the reference backend, for the parameters and
// the input images, over models that use every differentiable op the builder emits
// (convolution with explicit and SAME padding, max and average pooling, LRN, ReLU, tanh,
// sigmoid, GELU, batch normalisation, dropout, a separate bias, inner products, softmax
// cross-entropy, log-softmax + NLL), a hand-built graph whose values are read twice (the gradients are summed) and, once
// its kernels are merged, Torch's connection-table convolution.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <gtest/gtest.h>

#include "graph/static/autodiff.h"
#include "graph/static/model_builder.h"
#include "graph/static/session.h"
#include "graph_test_util.h"
#include "kernels/registry.h"
#include "models/parameters.h"
#include "static_test_util.h"

namespace ablate::graph {
namespace {

using static_graph::OpKind;
using static_graph::Value;

constexpr double kStep = 1e-6;

// Compares fetch 1 + i (the gradient of wrt[i]) with central differences of fetch 0 (the
// loss) at a few elements of each: `perturb(i, j, delta)` moves element j of wrt[i].
template <class Perturb>
void compare(static_graph::Session& s, const std::vector<std::string>& names, const std::vector<std::int64_t>& sizes,
             Perturb perturb) {
  const static_graph::RunContext run{5, 0, 3};
  s.run(run);
  std::vector<kernels::Tensor> analytic;
  for (std::size_t i = 0; i < names.size(); ++i) analytic.push_back(s.fetch(1 + i).clone());
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::int64_t n = sizes[i];
    for (std::int64_t j : {std::int64_t{0}, n / 3, n / 2, (2 * n) / 3, n - 1}) {
      perturb(i, j, kStep);
      s.run(run);
      const double plus = s.fetch(0).at(0);
      perturb(i, j, -2 * kStep);
      s.run(run);
      const double minus = s.fetch(0).at(0);
      perturb(i, j, kStep);
      const double numeric = (plus - minus) / (2 * kStep), exact = analytic[i].at(j);
      EXPECT_NEAR(exact, numeric, 1e-6 * std::max(1.0, std::abs(numeric))) << names[i] << "[" << j << "]";
    }
  }
}

// Every parameter and the input images of a ModelSpec.
void check_model(const std::string& text) {
  auto backend = kernels::make_backend("reference");
  const auto spec = testing::parse(text);
  const std::int64_t batch = 3;
  auto m = static_graph::build_model_graph(models::CheckedModel(spec), batch, kernels::DType::f64, static_graph::Phase::train);
  std::vector<Value> wrt;
  std::vector<std::string> names;
  std::vector<std::int64_t> sizes;
  for (const auto& p : m.parameters) {
    wrt.push_back(p.value);
    names.push_back(p.name);
    sizes.push_back(kernels::shape_numel(m.graph.type(p.value).shape));
  }
  wrt.push_back(m.x);
  names.push_back("x");
  sizes.push_back(kernels::shape_numel(m.graph.type(m.x).shape));
  const auto grads = static_graph::add_gradients(m.graph, m.loss, wrt);
  m.graph.fetches = {m.loss};
  m.graph.fetches.insert(m.graph.fetches.end(), grads.begin(), grads.end());

  static_graph::VariableStore store;
  for (const auto& p : models::make_initial_parameters(spec, kernels::DType::f64, 4)) store.assign(p.name, p.value, *backend);
  for (const auto& s : models::make_initial_state(spec, kernels::DType::f64)) store.assign(s.name, s.value, *backend);
  static_graph::Session s(m.graph, *backend, store, {});
  auto batch_data = testing::random_batch(spec, batch, kernels::DType::f64, 11);
  s.feed("x", batch_data.x);
  s.feed("labels", batch_data.labels);
  compare(s, names, sizes, [&](std::size_t i, std::int64_t j, double delta) {
    if (i + 1 < names.size()) {
      kernels::Tensor& t = store.at(names[i]);
      t.set(j, t.at(j) + delta);
    } else {
      batch_data.x.set(j, batch_data.x.at(j) + delta);
      s.feed("x", batch_data.x);
    }
  });
}

TEST(StaticGradientCheck, ConvPoolLrnDropoutAndSigmoidModel) {
  check_model(
      "model check_a\ninput 2 8 8\nclasses 3\n"
      "layer conv1 convolution outputs=3 kernel=3 pad=1 weight_init=gaussian:0.5 bias_init=gaussian:0.2\n"
      "layer relu1 relu\n"
      "layer pool1 pooling mode=max kernel=2 stride=2 padding=caffe_ceil\n"
      "layer norm1 lrn size=3 alpha=0.5 beta=0.75 k=2\n"
      "layer conv2 convolution outputs=4 kernel=3 padding=same weight_init=gaussian:0.5 bias_init=gaussian:0.2\n"
      "layer sig sigmoid\n"
      "layer pool2 pooling mode=avg kernel=3 stride=2 padding=tf_same\n"
      "layer ip1 inner_product outputs=6 weight_init=gaussian:0.4 bias_init=gaussian:0.2\n"
      "layer t1 tanh\n"
      "layer drop dropout keep=0.6\n"
      "layer ip2 inner_product outputs=3 weight_init=gaussian:0.4 bias_init=gaussian:0.2\n"
      "layer loss softmax_loss\n");
}

TEST(StaticGradientCheck, TheanoOrderWithSeparateBiasAndLogSoftmaxNll) {
  check_model(
      "model check_b\ninput 1 9 9\nclasses 4\n"
      "layer conv1 convolution outputs=3 kernel=2 bias=false weight_init=gaussian:0.5\n"
      "layer pool1 pooling mode=max kernel=2 padding=valid\n"
      "layer b1 bias bias_init=gaussian:0.3\n"
      "layer t1 tanh\n"
      "layer ip1 inner_product outputs=4 weight_init=gaussian:0.4 bias_init=gaussian:0.2\n"
      "layer logp log_softmax\n"
      "layer loss nll_loss\n");
}

// batch_norm in training (PyTorch's convention after a convolution, Caffe's without an affine
// part on features) and GELU in both forms.
TEST(StaticGradientCheck, BatchNormAndGeluModel) {
  check_model(
      "model check_bn\ninput 2 7 7\nclasses 3\n"
      "layer conv1 convolution outputs=3 kernel=3 bias=false weight_init=gaussian:0.5\n"
      "layer bn1 batch_norm weight_init=gaussian:1 bias_init=gaussian:0.3\n"
      "layer g1 gelu\n"
      "layer pool1 pooling mode=max kernel=2 stride=2 padding=caffe_ceil\n"
      "layer ip1 inner_product outputs=5 weight_init=gaussian:0.4 bias_init=gaussian:0.2\n"
      "layer bn2 batch_norm momentum_style=caffe\n"
      "layer g2 gelu approximate=tanh\n"
      "layer ip2 inner_product outputs=3 weight_init=gaussian:0.4 bias_init=gaussian:0.2\n"
      "layer loss softmax_loss\n");
}

// The reference backend implements conv2d_map: a "not implemented" fails the test, never skips it.
TEST(StaticGradientCheck, ConnectionTableConvolution) {
  check_model(
      "model check_map\ninput 3 7 7\nclasses 2\n"
      "layer c1 conv_map outputs=4 kernel=3 fan_in=2 weight_init=gaussian:0.5 bias_init=gaussian:0.2\n"
      "layer t1 tanh\n"
      "layer ip1 inner_product outputs=2 weight_init=gaussian:0.4\n"
      "layer loss softmax_loss\n");
}

// A DAG: r = relu(x) is read by a scale, a tanh and a mul, so its gradient sums three paths;
// the product of two variables' paths differentiates both operands of mul.
TEST(StaticGradientCheck, ValuesReadTwiceSumTheirGradients) {
  auto backend = kernels::make_backend("reference");
  testing::GraphKit k(*backend);
  const Value x = k.variable("x", {3, 2, 2, 2}, 1);
  const Value r = k.op(OpKind::activation, "r", {x});
  static_graph::Attrs twice;
  twice.alpha = 2.0;
  const Value s = k.op(OpKind::scale, "s", {r}, twice);
  static_graph::Attrs tanh;
  tanh.activation = kernels::Activation::tanh;
  const Value t = k.op(OpKind::activation, "t", {r}, tanh);
  const Value m = k.op(OpKind::mul, "m", {t, r});
  const Value sum = k.op(OpKind::add, "sum", {s, m});
  const Value w = k.variable("w", {4, 8}, 2);
  const Value logits = k.op(OpKind::linear, "logits", {sum, w});
  const Value loss = k.op(OpKind::softmax_xent, "loss", {logits, k.labels("labels", 3, 4)});
  const auto grads = static_graph::add_gradients(k.graph, loss, {x, w});
  k.graph.fetches = {loss, grads[0], grads[1]};
  auto session = k.session();
  compare(*session, {"x", "w"}, {24, 32}, [&](std::size_t i, std::int64_t j, double delta) {
    kernels::Tensor& v = k.store.at(i == 0 ? "x" : "w");
    v.set(j, v.at(j) + delta);
  });
}

// The generic ops: gemm with every transposition (and a beta term), axpby and axpy, copy,
// sum and sum_squares (their gradients broadcast a host scalar), and a loss that adds host
// scalars (cross-entropy plus an L2 term, as TensorFlow's CIFAR-10 model writes its weight
// decay). softmax has no gradient; its forward equals softmax_xent's probabilities.
TEST(StaticGradientCheck, GemmAxpbyReductionsAndHostScalarLosses) {
  auto backend = kernels::make_backend("reference");
  testing::GraphKit k(*backend);
  const Value a = k.variable("a", {3, 4}, 1), at = k.variable("at", {4, 3}, 2), b = k.variable("b", {4, 5}, 3),
              bt = k.variable("bt", {5, 4}, 4), c0 = k.variable("c0", {3, 5}, 5);
  auto gemm = [&](const char* name, std::vector<Value> in, bool ta, bool tb, double alpha, double beta) {
    static_graph::Attrs p;
    p.trans_a = ta;
    p.trans_b = tb;
    p.alpha = alpha;
    p.beta = beta;
    return k.op(OpKind::gemm, name, std::move(in), p);
  };
  auto mix = [&](const char* name, Value x, Value y, double alpha, double beta) {
    static_graph::Attrs p;
    p.alpha = alpha;
    p.beta = beta;
    return k.op(OpKind::axpby, name, {x, y}, p);
  };
  auto scaled = [&](const char* name, Value v, double alpha) {
    static_graph::Attrs p;
    p.alpha = alpha;
    return k.op(OpKind::scalar_scale, name, {v}, p);
  };
  const Value nn = gemm("nn", {a, b}, false, false, 0.7, 0), tn = gemm("tn", {at, b}, true, false, 1.1, 0);
  const Value nt = gemm("nt", {a, bt}, false, true, 0.9, 0), tt = gemm("tt", {at, bt, c0}, true, true, 1.0, 0.5);
  const Value s1 = mix("s1", nn, tn, 0.3, -1.2), s2 = mix("s2", nt, tt, 1.0, 1.0);  // axpby, axpy
  const Value s3 = k.op(OpKind::add, "s3", {s1, k.op(OpKind::copy, "s2_copy", {s2})});
  static_graph::Attrs tanh;
  tanh.activation = kernels::Activation::tanh;
  const Value logits = k.op(OpKind::activation, "logits", {s3}, tanh);
  const Value xent = k.op(OpKind::softmax_xent, "xent", {logits, k.labels("labels", 3, 5)});
  const Value prob = {xent.node, 1};
  const Value l2 = scaled("l2", k.op(OpKind::sum_squares, "a2", {a}), 0.01);
  const Value total = scaled("total", k.op(OpKind::sum, "sum_bt", {bt}), 0.05);
  const Value loss = k.op(OpKind::add, "loss", {k.op(OpKind::add, "xent_l2", {xent, l2}), total});
  const Value soft = k.op(OpKind::softmax, "soft", {logits});
  const auto grads = static_graph::add_gradients(k.graph, loss, {a, at, b, bt, c0});
  k.graph.fetches = {loss, grads[0], grads[1], grads[2], grads[3], grads[4], soft, prob};
  auto session = k.session();
  const std::vector<std::string> names{"a", "at", "b", "bt", "c0"};
  compare(*session, names, {12, 12, 20, 20, 15}, [&](std::size_t i, std::int64_t j, double delta) {
    kernels::Tensor& v = k.store.at(names[i]);
    v.set(j, v.at(j) + delta);
  });
  EXPECT_TRUE(session->graph().type(session->graph().fetches[0]).host);
  for (std::int64_t j = 0; j < 15; ++j) EXPECT_NEAR(session->fetch(6).at(j), session->fetch(7).at(j), 1e-15);
  testing::expect_error<std::invalid_argument>([&] { static_graph::add_gradients(k.graph, loss, {k.op(OpKind::softmax, "s", {a})}); },
                                               {"does not depend on"});
}

}  // namespace
}  // namespace ablate::graph
