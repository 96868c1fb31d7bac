// The static strategy's blocked_layout pass (graph/static/blocked_layout_pass.cpp) on a
// residual network with batch normalisation (16 and 32 channels, a projection shortcut): on
// oneDNN in f32, every convolution, batch norm and pooling output and the elementwise values
// between them stay channel-blocked, with a conversion only where the classifier reads them; training and
// evaluation give the losses and weights of the same engine with the pass off, under the
// planned arena, TensorFlow's refcount mode with buffer forwarding and two inter-op threads;
// and on a backend without a blocked layout (reference, f64 anywhere) the pass changes nothing.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "graph/engine.h"
#include "graph/static/node_label.h"
#include "graph/static/passes.h"
#include "graph/static/training_graph.h"
#include "blocked_layout_util.h"
#include "graph_test_util.h"
#include "kernels/planned_backend.h"
#include "kernels/registry.h"
#include "models/checked_model.h"

namespace ablate::graph {
namespace {

using namespace testing::blocked;

using static_graph::OpKind;

TEST(BlockedLayout, KeepsTheResidualBlockBlockedAndConvertsBeforeTheClassifier) {
  auto backend = kernels::make_backend("onednn", 2);
  const int block = backend->channel_block(kernels::DType::f32);
  if (block == 0) GTEST_SKIP() << "onednn has no blocked layout on this CPU";
  const models::CheckedModel model(testing::parse(residual_bn_text()));
  auto training = static_graph::build_training_graph(model, 4, f32_options());
  static_graph::Graph& g = training.graph;
  const static_graph::PassReport report = static_graph::run_passes(g, {}, *backend);
  const auto made = std::find_if(report.rewrites.begin(), report.rewrites.end(),
                                 [](const auto& r) { return r.first == "blocked_layout"; });
  ASSERT_NE(made, report.rewrites.end());
  EXPECT_GT(made->second, 10);
  int conversions = 0;
  for (int id : g.execution_order()) {
    const static_graph::Node& n = g.node(id);
    const bool layout_op = n.op == OpKind::conv2d || n.op == OpKind::conv2d_grad_input || n.op == OpKind::batch_norm ||
                           n.op == OpKind::batch_norm_grad;
    if (layout_op && n.inputs.size() > 0 && g.type(n.inputs[0]).shape[1] % block == 0 &&
        n.outputs[0].shape[1] % block == 0 && n.name.find("conv0/") == std::string::npos) {
      EXPECT_EQ(n.outputs[0].channel_block, block) << n.name;
    }
    if (n.name.size() > 9 && n.name.substr(n.name.size() - 9) == "/to_plain") {
      ++conversions;
      EXPECT_NE(g.type(n.inputs[0]).channel_block, 0) << n.name;
      EXPECT_EQ(n.outputs[0].channel_block, 0) << n.name;
    }
    if (n.op == OpKind::pool2d || n.op == OpKind::pool2d_grad) {
      EXPECT_EQ(n.outputs[0].channel_block, block) << n.name;
    }
    if (n.op == OpKind::linear) {
      EXPECT_EQ(g.type(n.inputs[0]).channel_block, 0) << n.name << " reads a blocked value";
    }
  }
  EXPECT_GE(conversions, 1);  // the pool's [4, 32, 1, 1] before the classifier
  EXPECT_LE(conversions, 3) << "conversions belong at the edge of the blocked region only";
}

// Where the block does not divide the channels (20, 12) the values are channels-last (a block
// of all C: NHWC) from each convolution and its gradient to the classifier, and train as with
// the pass off.
TEST(BlockedLayout, GoesChannelsLastWhereTheBlockDoesNotDivideTheChannels) {
  auto backend = kernels::make_backend("onednn", 2);
  if (backend->channel_block(kernels::DType::f32) == 0) GTEST_SKIP() << "onednn has no blocked layout on this CPU";
  const models::ModelSpec spec = testing::parse(lenet_like_text());
  const models::CheckedModel model(spec);
  auto training = static_graph::build_training_graph(model, 4, f32_options());
  static_graph::Graph& g = training.graph;
  static_graph::run_passes(g, {}, *backend);
  int channels_last = 0;
  for (int id : g.execution_order()) {
    const static_graph::Node& n = g.node(id);
    const bool layout_op = n.op == OpKind::conv2d || n.op == OpKind::pool2d || n.op == OpKind::lrn ||
                           n.op == OpKind::batch_norm || n.op == OpKind::lrn_grad || n.op == OpKind::batch_norm_grad;
    if (!layout_op || n.outputs[0].shape.size() != 4) continue;
    EXPECT_EQ(n.outputs[0].channel_block, n.outputs[0].shape[1]) << n.name << " is not channels-last";
    ++channels_last;
  }
  EXPECT_GE(channels_last, 8);
  EngineOptions off = f32_options();
  off.disabled_passes = {"blocked_layout"};
  auto plain = make_engine("static", spec, *backend, off);
  auto blocked = make_engine("static", spec, *backend, f32_options());
  expect_close(train(*blocked, spec), train(*plain, spec));
}

TEST(BlockedLayout, TrainsAndEvaluatesAsWithThePassOff) {
  auto backend = kernels::make_backend("onednn", 2);
  if (backend->channel_block(kernels::DType::f32) == 0) GTEST_SKIP() << "onednn has no blocked layout on this CPU";
  const models::ModelSpec spec = testing::parse(residual_bn_text());
  EngineOptions off = f32_options();
  off.disabled_passes = {"blocked_layout"};
  const Trained plain = [&] {
    auto engine = make_engine("static", spec, *backend, off);
    return train(*engine, spec);
  }();
  struct Set {
    const char* name;
    std::vector<std::string> disabled;
    int threads;
  };
  std::vector<std::string> tensorflow;  // the refcount mode with buffer forwarding, no in-place pass
  for (const std::string& p : static_graph::pass_names())
    if (p != "blocked_layout" && p != "buffer_forwarding" && p != "refcount_allocation" && p != "cse" && p != "dce")
      tensorflow.push_back(p);
  for (const Set& set : {Set{"all on", {}, 1}, Set{"refcount, forwarding", tensorflow, 1}, Set{"2 inter-op threads", {}, 2}}) {
    SCOPED_TRACE(set.name);
    EngineOptions o = f32_options();
    o.disabled_passes = set.disabled;
    o.inter_op_threads = set.threads;
    if (set.threads > 1) o.executor = ExecutorKind::parallel;
    auto engine = make_engine("static", spec, *backend, o);
    expect_close(train(*engine, spec), plain);
  }
}

// Under a per-layer plan (kernels/planned_backend.h) only the layers routed blocked run in the
// layout: the residual branch (conv1, bn1, relu1, conv2, bn2) blocked on onednn, the projection
// (proj, bnp) on another onednn instance plain, the rest on the fallback, plain. The add of the
// two (an elementwise op: any one layout) takes the branch's and converts the projection's.
TEST(BlockedLayout, APlanKeepsOnlyTheLayersItRoutesBlockedBlocked) {
  auto probe = kernels::make_backend("onednn", 1);
  const int block = probe->channel_block(kernels::DType::f32);
  if (block == 0) GTEST_SKIP() << "onednn has no blocked layout on this CPU";
  auto make_plan = [] {
    auto planned = std::make_unique<kernels::PlannedBackend>(kernels::make_backend("onednn", 2), "onednn");
    kernels::Backend& branch = planned->add(kernels::make_backend("onednn", 2), "onednn+blocked");
    kernels::Backend& projection = planned->add(kernels::make_backend("onednn", 2), "onednn/plain");
    for (const char* layer : {"conv1", "bn1", "relu1", "conv2", "bn2"}) planned->route(layer, branch, true);
    for (const char* layer : {"proj", "bnp"}) planned->route(layer, projection);
    return planned;
  };
  auto planned = make_plan();
  const models::CheckedModel model(testing::parse(residual_bn_text()));
  auto training = static_graph::build_training_graph(model, 4, f32_options());
  static_graph::Graph& g = training.graph;
  static_graph::run_passes(g, {}, *planned);
  int to_blocked = 0;
  for (int id : g.execution_order()) {
    const static_graph::Node& n = g.node(id);
    const std::string layer(static_graph::node_label(n).layer);
    if (n.op == OpKind::conv2d || n.op == OpKind::batch_norm) {
      const bool in_branch = layer == "conv1" || layer == "bn1" || layer == "conv2" || layer == "bn2";
      EXPECT_EQ(n.outputs[0].channel_block, in_branch ? block : 0) << n.name;
    }
    if (n.op == OpKind::add && layer == "sum") {
      EXPECT_EQ(n.outputs[0].channel_block, block) << n.name;
    }
    if (n.name.size() > 11 && n.name.substr(n.name.size() - 11) == "/to_blocked") ++to_blocked;
  }
  EXPECT_GE(to_blocked, 1) << "the projection's plain output joins the blocked branch at the add";

  // And it trains as one plain backend does.
  const models::ModelSpec spec = testing::parse(residual_bn_text());
  EngineOptions off = f32_options();
  off.disabled_passes = {"blocked_layout"};
  auto plain_engine = make_engine("static", spec, *probe, off);
  const Trained plain = train(*plain_engine, spec);
  auto engine = make_engine("static", spec, *planned, f32_options());
  expect_close(train(*engine, spec), plain);
}

TEST(BlockedLayout, ChangesNothingWithoutABlockedLayout) {
  const models::CheckedModel model(testing::parse(residual_bn_text()));
  auto reference = kernels::make_backend("reference");
  auto onednn = kernels::make_backend("onednn", 1);
  for (auto [backend, dtype] : {std::pair{reference.get(), kernels::DType::f32}, std::pair{onednn.get(), kernels::DType::f64}}) {
    EngineOptions o = f32_options();
    o.dtype = dtype;
    auto training = static_graph::build_training_graph(model, 4, o);
    EXPECT_EQ(static_graph::blocked_layout_pass(training.graph, *backend), 0) << backend->name();
    for (int id : training.graph.execution_order())
      for (const auto& t : training.graph.node(id).outputs) EXPECT_EQ(t.channel_block, 0);
  }
}

}  // namespace
}  // namespace ablate::graph
