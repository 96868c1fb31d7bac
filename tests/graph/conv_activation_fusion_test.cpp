// The conv_activation_fusion pass (graph/static/conv_activation_fusion_pass.cpp): on hand-built
// graphs, what folds into a convolution (bias_add + activation, a lone activation, the
// elementwise fusion's [bias_add, activation] node) and what stays (a fetched or twice-read
// intermediate, GELU, a conv that already has a bias before a bias_add); on TensorFlow's MNIST
// training graph, the compiled graph before and after, the same loss and gradients as with the
// pass off (f32 on openblas and onednn within 1e-6, f64 on reference within 1e-12, tanh and
// sigmoid too), and with the pass off the graph of the pipeline without it.
#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "graph/static/passes.h"
#include "graph/static/training_graph.h"
#include "graph_test_util.h"
#include "kernels/registry.h"
#include "models/parameters.h"
#include "fetch_compare.h"
#include "static_test_util.h"

namespace ablate::graph {
namespace {

using kernels::Activation;
using static_graph::Attrs;
using static_graph::Graph;
using static_graph::Node;
using static_graph::OpKind;
using static_graph::Value;
using testing::GraphKit;

Attrs activation(Activation a) {
  Attrs attrs;
  attrs.activation = a;
  return attrs;
}

Attrs same_padding() {
  Attrs a;
  a.conv.pad_top = a.conv.pad_left = a.conv.pad_bottom = a.conv.pad_right = 1;
  return a;
}

// x [2,3,5,5] -> conv 3x3 SAME (4 planes) -> bias_add -> f, fetched.
struct ConvChain {
  Value x, w, b, conv, biased, act;
};
ConvChain conv_chain(GraphKit& k, Activation f = Activation::relu) {
  ConvChain c;
  c.x = k.placeholder("x", {2, 3, 5, 5}, 1);
  c.w = k.variable("w", {4, 3, 3, 3}, 2);
  c.b = k.variable("b", {4}, 3);
  c.conv = k.op(OpKind::conv2d, "conv1/conv2d", {c.x, c.w}, same_padding());
  c.biased = k.op(OpKind::bias_add, "conv1/bias_add", {c.conv, c.b});
  c.act = k.op(OpKind::activation, "relu1/activation", {c.biased}, activation(f));
  return c;
}

// f64 on the reference backend: the fused conv adds the bias inside its double sum, the
// unfused bias_add after rounding, so the last bit may differ.
void expect_same_fetches_without_the_pass(GraphKit& k) {
  auto on = k.session();
  auto off = k.session({"conv_activation_fusion"});
  testing::expect_fetches_close(testing::run_and_fetch(*on), testing::run_and_fetch(*off), 1e-12);
}

TEST(ConvActivationFusion, FoldsBiasAddAndActivationIntoTheConvolution) {
  auto backend = kernels::make_backend("reference");
  for (Activation f : {Activation::relu, Activation::tanh, Activation::sigmoid}) {
    GraphKit k(*backend);
    const ConvChain c = conv_chain(k, f);
    const Value next = k.op(OpKind::scale, "next", {c.act});
    k.graph.fetches = {next, c.act};

    Graph g = k.graph;
    const int before = g.live_count();
    EXPECT_EQ(static_graph::conv_activation_fusion_pass(g), 1);
    EXPECT_EQ(g.live_count(), before - 2);
    EXPECT_TRUE(g.node(c.biased.node).dead);
    EXPECT_TRUE(g.node(c.act.node).dead);
    const Node& conv = g.node(c.conv.node);
    EXPECT_EQ(conv.name, "conv1/conv2d+bias_add+activation");
    EXPECT_EQ(conv.inputs, (std::vector<Value>{c.x, c.w, c.b}));
    ASSERT_TRUE(conv.attrs.conv.activation.has_value());
    EXPECT_EQ(*conv.attrs.conv.activation, f);
    EXPECT_EQ(g.node(next.node).inputs[0], c.conv);
    EXPECT_EQ(g.fetches[1], c.conv);
    EXPECT_EQ(conv.order, k.graph.node(c.act.node).order);  // it takes the activation's place
    expect_same_fetches_without_the_pass(k);
  }
}

TEST(ConvActivationFusion, FoldsALoneActivationAndTheFusedBiasActivationNode) {
  auto backend = kernels::make_backend("reference");
  {  // conv (with its own bias input) -> activation
    GraphKit k(*backend);
    const Value x = k.placeholder("x", {2, 3, 5, 5}, 1);
    const Value conv = k.op(OpKind::conv2d, "c", {x, k.variable("w", {4, 3, 3, 3}, 2), k.variable("b", {4}, 3)});
    const Value act = k.op(OpKind::activation, "t", {conv}, activation(Activation::tanh));
    k.graph.fetches = {act};
    Graph g = k.graph;
    EXPECT_EQ(static_graph::conv_activation_fusion_pass(g), 1);
    EXPECT_EQ(g.node(conv.node).inputs.size(), 3u);
    EXPECT_EQ(g.fetches[0], conv);
    expect_same_fetches_without_the_pass(k);
  }
  {  // elementwise fusion first: conv -> [bias_add, relu]
    GraphKit k(*backend);
    const ConvChain c = conv_chain(k);
    k.graph.fetches = {c.act};
    Graph g = k.graph;
    ASSERT_EQ(static_graph::elementwise_fusion_pass(g), 1);
    const Value fused = g.fetches[0];
    ASSERT_EQ(g.node(fused.node).op, OpKind::fused_elementwise);
    EXPECT_EQ(static_graph::conv_activation_fusion_pass(g), 1);
    EXPECT_TRUE(g.node(fused.node).dead);
    EXPECT_EQ(g.node(c.conv.node).inputs, (std::vector<Value>{c.x, c.w, c.b}));
    EXPECT_EQ(g.node(c.conv.node).name, "conv1/conv2d+bias_add+activation");
    EXPECT_EQ(g.fetches[0], c.conv);
  }
}

TEST(ConvActivationFusion, LeavesFetchedOrSharedIntermediatesGeluAndASecondBiasButTakesTheBias) {
  auto backend = kernels::make_backend("reference");
  auto untouched = [](GraphKit& k) {
    Graph g = k.graph;
    EXPECT_EQ(static_graph::conv_activation_fusion_pass(g), 0);
    EXPECT_FALSE(g.node(g.fetches[0].node).dead);
  };
  // The bias alone folds where the activation cannot: the convolution then writes the biased
  // values that the fetch or the activation reads.
  auto bias_only = [](GraphKit& k, const ConvChain& c) {
    Graph g = k.graph;
    EXPECT_EQ(static_graph::conv_activation_fusion_pass(g), 1);
    EXPECT_TRUE(g.node(c.biased.node).dead);
    EXPECT_FALSE(g.node(c.act.node).dead);
    EXPECT_EQ(g.node(c.conv.node).inputs, (std::vector<Value>{c.x, c.w, c.b}));
    EXPECT_FALSE(g.node(c.conv.node).attrs.conv.activation);
    EXPECT_EQ(g.node(c.act.node).inputs[0], c.conv);
  };
  {  // the bias_add's output is fetched
    GraphKit k(*backend);
    const ConvChain c = conv_chain(k);
    k.graph.fetches = {c.act, c.biased};
    bias_only(k, c);
  }
  {  // the conv's output has a second reader
    GraphKit k(*backend);
    const ConvChain c = conv_chain(k);
    k.graph.fetches = {c.act, k.op(OpKind::scale, "other", {c.conv})};
    untouched(k);
  }
  {  // GELU: its gradient reads the pre-activation
    GraphKit k(*backend);
    const ConvChain c = conv_chain(k, Activation::gelu);
    k.graph.fetches = {c.act};
    bias_only(k, c);
  }
  {  // a conv with a bias input before a bias_add: only the activation could fold, not through the bias_add
    GraphKit k(*backend);
    const Value x = k.placeholder("x", {2, 3, 5, 5}, 1);
    const Value conv = k.op(OpKind::conv2d, "c", {x, k.variable("w", {4, 3, 3, 3}, 2), k.variable("b1", {4}, 3)});
    const Value biased = k.op(OpKind::bias_add, "bias", {conv, k.variable("b2", {4}, 4)});
    k.graph.fetches = {k.op(OpKind::activation, "r", {biased})};
    untouched(k);
  }
}

// TensorFlow's MNIST CNN with `act` after each convolution, batch 2.
models::ModelSpec tf_mnist_with(const std::string& act) {
  std::string text = testing::tf_mnist_text();
  text = testing::replaced(text, "layer relu1 relu", "layer act1 " + act);
  text = testing::replaced(text, "layer relu2 relu", "layer act2 " + act);
  return testing::parse(text, "tf-mnist.model");
}

struct Training {
  static_graph::VariableStore store;
  std::unique_ptr<static_graph::Session> session;
};

std::unique_ptr<Training> training(const models::ModelSpec& spec, kernels::Backend& backend, kernels::DType dtype,
                                   std::vector<std::string> disabled) {
  auto t = std::make_unique<Training>();
  const EngineOptions options = testing::adam_options(2, dtype);
  auto tg = static_graph::build_training_graph(models::CheckedModel(spec), 2, options);
  for (const auto& p : models::make_initial_parameters(spec, dtype, 1)) t->store.assign(p.name, p.value, backend);
  for (int id = 0; id < tg.graph.size(); ++id) {
    const Node& n = tg.graph.node(id);
    if (n.op == OpKind::variable) t->store.create(n.attrs.key, n.outputs[0].shape, n.outputs[0].dtype, backend);
  }
  t->session = std::make_unique<static_graph::Session>(std::move(tg.graph), backend, t->store,
                                                       static_graph::SessionOptions{std::move(disabled), ExecutorKind::sequential, 1});
  const auto batch = testing::random_batch(spec, 2, dtype, 5);
  t->session->feed("x", batch.x);
  t->session->feed("labels", batch.labels);
  return t;
}

std::vector<const Node*> live_convs(const Graph& g) {
  std::vector<const Node*> out;
  for (int id : g.execution_order())
    if (g.node(id).op == OpKind::conv2d) out.push_back(&g.node(id));
  return out;
}

TEST(ConvActivationFusion, TfMnistTrainingGraphBeforeAndAfter) {
  auto backend = kernels::make_backend("openblas", 1);
  const auto spec = tf_mnist_with("relu");
  auto on = training(spec, *backend, kernels::DType::f32, {});
  auto off = training(spec, *backend, kernels::DType::f32, {"conv_activation_fusion"});
  const Graph &a = on->session->graph(), &b = off->session->graph();
  // conv1's and conv2's fused [bias_add, relu] nodes are gone, and their bias_grad nodes: each
  // bias gradient is the second output of its convolution's conv2d_grad_filter.
  EXPECT_EQ(a.live_count(), b.live_count() - 4);
  int filters_with_bias = 0;
  for (int id : a.execution_order()) {
    const Node& n = a.node(id);
    if (n.op == OpKind::bias_grad) {
      EXPECT_EQ(n.name.rfind("grad/fc", 0), 0u) << n.name << ": only the classifier's";
    }
    if (n.op == OpKind::conv2d_grad_filter && n.attrs.bias && n.outputs.size() == 2) ++filters_with_bias;
  }
  EXPECT_EQ(filters_with_bias, 2);
  for (const Node* conv : live_convs(a)) {
    EXPECT_EQ(conv->inputs.size(), 3u) << conv->name;
    ASSERT_TRUE(conv->attrs.conv.activation) << conv->name;
    EXPECT_EQ(*conv->attrs.conv.activation, Activation::relu);
  }
  ASSERT_EQ(live_convs(a).size(), 2u);
  EXPECT_EQ(live_convs(a)[1]->name, "conv2/conv2d+bias_add+relu");
  for (const Node* conv : live_convs(b)) EXPECT_FALSE(conv->attrs.conv.activation) << conv->name;
  // The ReLU gradient reads the fused convolution's output.
  int readers = 0;
  for (int id : a.execution_order()) {
    const Node& n = a.node(id);
    for (const Value& v : n.inputs)
      if (a.node(v.node).op == OpKind::conv2d && (n.name.find("grad/") == 0)) ++readers;
  }
  EXPECT_GE(readers, 2);

  // With the pass off the graph is the one the other passes make on their own.
  Graph old = static_graph::build_training_graph(models::CheckedModel(spec), 2, testing::adam_options(2, kernels::DType::f32)).graph;
  static_graph::constant_folding_pass(old, *backend);
  static_graph::cse_pass(old);
  static_graph::dce_pass(old);
  static_graph::elementwise_fusion_pass(old);
  static_graph::update_fusion_pass(old);
  static_graph::inplace_pass(old);
  const std::vector<int> old_order = old.execution_order(), off_order = b.execution_order();
  ASSERT_EQ(old_order.size(), off_order.size());
  for (std::size_t i = 0; i < old_order.size(); ++i) {
    EXPECT_EQ(b.node(off_order[i]).name, old.node(old_order[i]).name);
    EXPECT_EQ(static_graph::attribute_signature(b.node(off_order[i])), static_graph::attribute_signature(old.node(old_order[i])));
  }
}

// Loss and every gradient of one training step, with the pass on and off.
// onednn deterministic: plain layouts, not the autotuner's timed choice, which may differ
// between the fused and the unfused primitive.
void expect_same_step(const std::string& backend_name, kernels::DType dtype, const std::string& act, double bound) {
  SCOPED_TRACE(backend_name + " " + kernels::dtype_name(dtype) + " " + act);
  kernels::BackendOptions options;
  options.threads = 1;
  options.deterministic = true;
  auto backend = kernels::make_backend(backend_name, options);
  const auto spec = tf_mnist_with(act);
  auto on = training(spec, *backend, dtype, {});
  auto off = training(spec, *backend, dtype, {"conv_activation_fusion"});
  ASSERT_EQ(live_convs(on->session->graph()).size(), 2u);
  EXPECT_TRUE(live_convs(on->session->graph())[0]->attrs.conv.activation);
  testing::expect_fetches_close(testing::run_and_fetch(*on->session), testing::run_and_fetch(*off->session), bound);
}

TEST(ConvActivationFusion, GradientsEqualThePassOffInF32AndF64) {
  for (const char* act : {"relu", "tanh", "sigmoid"}) {
    expect_same_step("openblas", kernels::DType::f32, act, 1e-6);
    expect_same_step("reference", kernels::DType::f64, act, 1e-12);
  }
  expect_same_step("onednn", kernels::DType::f32, "relu", 1e-6);
  expect_same_step("eigen", kernels::DType::f64, "tanh", 1e-12);
}

}  // namespace
}  // namespace ablate::graph
