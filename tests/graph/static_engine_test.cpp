// The static Engine: registration, parameters (names, order, initial values, gradients),
// errors (unknown passes and executors, weight averaging, bad batches, a shape mismatch in a
// graph naming both nodes, a NaN loss stopping before any update), evaluation at other batch
// sizes sharing the trained variables, the report, every layer type of the catalog in a
// graph, and no allocation inside train_step once compiled.
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

#include <gtest/gtest.h>

#include "graph/engine.h"
#include "graph/static/static_engine.h"
#include "graph/static/training_graph.h"
#include "graph_test_util.h"
#include "kernels/registry.h"
#include "models/layer_catalog.h"
#include "models/parameters.h"
#include "static_test_util.h"

namespace ablate::graph {
namespace {

using testing::expect_error;

TEST(StaticEngine, IsRegisteredWithParametersInCanonicalOrder) {
  EXPECT_EQ(find_strategy("static").build, &static_graph::make_static_engine);
  auto backend = kernels::make_backend("reference");
  auto spec = testing::parse(testing::replaced(testing::tiny_lenet_text(), "layer conv2",
                                               "layer b1 bias bias_lr_mult=3 bias_decay_mult=0\nlayer conv2"));
  EngineOptions options = testing::caffe_sgd_options(4, kernels::DType::f32, 5);
  options.disabled_passes = {"update_fusion"};  // which gives up ip1's and ip2's gradients
  auto engine = make_engine("static", spec, *backend, options);
  EXPECT_EQ(engine->strategy(), "static");
  EXPECT_EQ(&engine->backend(), backend.get());
  const auto initial = models::make_initial_parameters(spec, kernels::DType::f32, 5);
  auto params = engine->parameters();
  ASSERT_EQ(params.size(), initial.size());
  for (std::size_t i = 0; i < params.size(); ++i) {
    EXPECT_EQ(params[i]->name, initial[i].name);
    EXPECT_EQ(params[i]->lr_mult, initial[i].lr_mult);
    EXPECT_EQ(params[i]->decay_mult, initial[i].decay_mult);
    ASSERT_EQ(params[i]->value.shape(), initial[i].value.shape());
    EXPECT_EQ(params[i]->grad.shape(), initial[i].value.shape());
    for (std::int64_t j = 0; j < initial[i].value.numel(); ++j)
      ASSERT_EQ(params[i]->value.at(j), initial[i].value.at(j)) << initial[i].name;
  }
  EXPECT_EQ(params[2]->name, "b1.bias");
  EXPECT_EQ(params[2]->lr_mult, 3.0);
}

TEST(StaticEngine, GradientsAfterAStepAreTheLayerwiseEnginesAndTheUpdateIsApplied) {
  auto backend = kernels::make_backend("reference");
  auto spec = testing::parse(testing::tiny_lenet_text());
  EngineOptions options = testing::caffe_sgd_options(4, kernels::DType::f64, 2);
  options.optimizer.weight_decay = 0;  // Caffe's SGD adds the decay into the gradient buffer
  options.disabled_passes = {"update_fusion"};  // the gradients of ip1 and ip2 stay whole
  auto stat = make_engine("static", spec, *backend, options);
  auto layer = make_engine("layerwise", spec, *backend, options);
  auto batch = testing::random_batch(spec, 4, kernels::DType::f64, 3);
  EXPECT_NEAR(stat->train_step(batch.x, batch.labels, 0), layer->train_step(batch.x, batch.labels, 0), 1e-12);
  auto sp = stat->parameters(), lp = layer->parameters();
  for (std::size_t i = 0; i < sp.size(); ++i)
    for (std::int64_t j = 0; j < sp[i]->grad.numel(); ++j) {
      ASSERT_NEAR(sp[i]->grad.at(j), lp[i]->grad.at(j), 1e-12 * (1 + std::abs(lp[i]->grad.at(j)))) << sp[i]->name;
      ASSERT_NEAR(sp[i]->value.at(j), lp[i]->value.at(j), 1e-12 * (1 + std::abs(lp[i]->value.at(j)))) << sp[i]->name;
    }
}

TEST(StaticEngine, OptionErrorsNameTheBadValue) {
  auto backend = kernels::make_backend("reference");
  auto spec = testing::parse(testing::tiny_lenet_text());
  auto options = testing::caffe_sgd_options(4, kernels::DType::f32);
  options.disabled_passes = {"cse", "loop_unrolling"};
  expect_error<std::invalid_argument>(
      [&] { make_engine("static", spec, *backend, options); },
      {"'loop_unrolling'", "constant_folding, cse, dce, attention_fusion, conv_activation_fusion, conv_pool_fusion, elementwise_fusion, "
                           "update_fusion, blocked_layout, inplace, buffer_forwarding, memory_planning, session_buffers, refcount_allocation"});
  options.disabled_passes = {};
  expect_error<std::invalid_argument>([&] { parse_executor("threaded"); }, {"executor 'threaded'", "sequential or parallel"});
  EXPECT_EQ(parse_executor("parallel"), ExecutorKind::parallel);
  options.executor = ExecutorKind::parallel;
  options.inter_op_threads = 0;
  expect_error<std::invalid_argument>([&] { make_engine("static", spec, *backend, options); }, {"inter_op_threads 0"});
  options.inter_op_threads = 2;
  options.weight_average_decay = 1.5;
  expect_error<std::invalid_argument>([&] { make_engine("static", spec, *backend, options); },
                                      {"weight average decay 1.5", "(0, 1]"});
  options.weight_average_decay = 0;
  options.optimizer.lr.policy = "poly";
  expect_error<std::invalid_argument>([&] { make_engine("static", spec, *backend, options); }, {"poly"});
  options.optimizer.lr.policy = "fixed";
  options.batch = 0;
  expect_error<std::invalid_argument>([&] { make_engine("static", spec, *backend, options); }, {"batch size 0"});
}

TEST(StaticEngine, BadBatchesFailAsInTheLayerwiseEngine) {
  auto backend = kernels::make_backend("reference");
  auto spec = testing::parse(testing::tiny_lenet_text());
  auto engine = make_engine("static", spec, *backend, testing::caffe_sgd_options(4, kernels::DType::f32));
  auto batch = testing::random_batch(spec, 4, kernels::DType::f32, 1);
  batch.labels.set(2, 3);
  expect_error<std::invalid_argument>([&] { engine->train_step(batch.x, batch.labels, 0); },
                                      {"train_step", "label 3", "sample 2", "classes 0..2"});
  batch.labels.set(2, 0);
  testing::expect_bad_batches_rejected(*engine, batch);
}

TEST(StaticEngine, F32InputFeedsAnF64Engine) {
  auto backend = kernels::make_backend("reference");
  auto spec = testing::parse(testing::tiny_lenet_text());
  const auto options = testing::caffe_sgd_options(4, kernels::DType::f64);
  auto from_f32 = make_engine("static", spec, *backend, options);
  auto from_f64 = make_engine("static", spec, *backend, options);
  auto batch = testing::random_batch(spec, 4, kernels::DType::f32, 10);
  kernels::Tensor x64(batch.x.shape(), kernels::DType::f64);
  x64.copy_from(batch.x);
  EXPECT_EQ(from_f32->parameters()[0]->value.dtype(), kernels::DType::f64);
  for (int t = 0; t < 2; ++t) EXPECT_EQ(from_f32->train_step(batch.x, batch.labels, t), from_f64->train_step(x64, batch.labels, t));
  EXPECT_EQ(from_f32->evaluate(batch.x, batch.labels).loss, from_f64->evaluate(x64, batch.labels).loss);
}

TEST(StaticEngine, ShapeMismatchNamesBothNodesAndShapes) {
  auto backend = kernels::make_backend("reference");
  testing::GraphKit k(*backend, kernels::DType::f32);
  const auto x = k.placeholder("x", {4, 2, 3, 3}, 1);
  const auto w = k.variable("fc.weight", {5, 17}, 2);
  expect_error<std::invalid_argument>(
      [&] { k.op(static_graph::OpKind::linear, "fc/linear", {x, w}); },
      {"'fc/linear'", "'x' f32[4, 2, 3, 3]", "18 features", "'fc.weight' f32[5, 17]", "expects 17"});
  const auto y = k.placeholder("y", {4, 2, 3, 2}, 3);
  expect_error<std::invalid_argument>([&] { k.op(static_graph::OpKind::add, "sum", {x, y}); },
                                      {"'sum'", "'x' f32[4, 2, 3, 3]", "'y' f32[4, 2, 3, 2]"});
  // A model whose layers do not fit names the layer.
  auto spec = testing::parse(testing::tiny_lenet_text());
  spec.classes = 5;
  expect_error<std::invalid_argument>(
      [&] { make_engine("static", spec, *backend, testing::caffe_sgd_options(4, kernels::DType::f32)); },
      {"layer 'loss'", "[N, 5]"});
  expect_error<std::invalid_argument>([&] { models::CheckedModel{spec}; }, {"layer 'loss'", "[1, 3]", "[N, 5]"});
}

TEST(StaticEngine, NanLossStopsBeforeAnyUpdateWithTheIteration) {
  auto backend = kernels::make_backend("reference");
  auto spec = testing::parse(testing::tiny_lenet_text());
  for (ExecutorKind executor : {ExecutorKind::sequential, ExecutorKind::parallel}) {
    auto options = testing::caffe_sgd_options(4, kernels::DType::f32);
    options.executor = executor;
    options.inter_op_threads = 2;
    auto engine = make_engine("static", spec, *backend, options);
    auto batch = testing::random_batch(spec, 4, kernels::DType::f32, 2);
    testing::expect_nan_loss_stops_before_the_update(*engine, batch);
  }
}

TEST(StaticEngine, EvaluateSharesTheTrainedVariablesAtAnyBatchSize) {
  auto backend = kernels::make_backend("reference");
  auto spec = testing::parse(testing::replaced(testing::tiny_lenet_text(), "layer ip2", "layer drop dropout keep=0.5\nlayer ip2"));
  auto options = testing::caffe_sgd_options(4, kernels::DType::f64);
  auto stat = make_engine("static", spec, *backend, options);
  auto layer = make_engine("layerwise", spec, *backend, options);
  auto big = testing::random_batch(spec, 10, kernels::DType::f64, 3);
  auto small = testing::random_batch(spec, 4, kernels::DType::f64, 4);
  for (int t = 0; t < 2; ++t) {
    const EvalResult s = stat->evaluate(big.x, big.labels), l = layer->evaluate(big.x, big.labels);
    EXPECT_NEAR(s.loss, l.loss, 1e-12 * std::abs(l.loss));
    EXPECT_EQ(s.correct, l.correct);
    stat->train_step(small.x, small.labels, t);
    layer->train_step(small.x, small.labels, t);
  }
  const auto odd = testing::random_batch(spec, 3, kernels::DType::f64, 5);
  EXPECT_NEAR(stat->evaluate(odd.x, odd.labels).loss, layer->evaluate(odd.x, odd.labels).loss, 1e-12);
  // Training at another batch size compiles another session over the same variables.
  const auto six = testing::random_batch(spec, 6, kernels::DType::f64, 6);
  EXPECT_NEAR(stat->train_step(six.x, six.labels, 2), layer->train_step(six.x, six.labels, 2), 1e-12);
  EXPECT_NEAR(stat->train_step(small.x, small.labels, 3), layer->train_step(small.x, small.labels, 3), 1e-12);
}

TEST(StaticEngine, ReportListsPassesExecutorAndMemoryCounters) {
  auto backend = kernels::make_backend("reference");
  auto spec = testing::parse(testing::tiny_lenet_text());
  auto options = testing::caffe_sgd_options(4, kernels::DType::f32);
  options.disabled_passes = {"cse"};
  options.executor = ExecutorKind::parallel;
  options.inter_op_threads = 2;
  auto engine = make_engine("static", spec, *backend, options);
  auto batch = testing::random_batch(spec, 4, kernels::DType::f32, 1);
  engine->train_step(batch.x, batch.labels, 0);
  const EngineReport r = engine->report();
  auto setting = [&](const std::string& key) {
    for (const auto& [k, v] : r.settings)
      if (k == key) return v;
    return std::string("<missing>");
  };
  auto counter = [&](const std::string& key) {
    for (const auto& [k, v] : r.counters)
      if (k == key) return v;
    return -1.0;
  };
  EXPECT_EQ(setting("passes_on"),
            "constant_folding,dce,attention_fusion,conv_activation_fusion,conv_pool_fusion,elementwise_fusion,update_fusion,blocked_layout,"
            "inplace,"
            "memory_planning");
  // The memory passes the planned arena supersedes are off (memory_mode.h).
  EXPECT_EQ(setting("passes_off"), "cse,buffer_forwarding,session_buffers,refcount_allocation");
  EXPECT_EQ(setting("executor"), "parallel");
  EXPECT_EQ(setting("inter_op_threads"), "2");
  EXPECT_GT(counter("planned_bytes"), 0);
  EXPECT_LT(counter("planned_bytes"), counter("unplanned_bytes"));
  EXPECT_GT(counter("peak_tensor_bytes"), counter("planned_bytes"));
  EXPECT_LT(counter("graph_nodes_after_passes"), counter("graph_nodes_before_passes"));
  EXPECT_EQ(counter("pass_cse_rewrites"), -1.0);
  EXPECT_EQ(counter("refcount_peak_bytes"), -1.0);  // only in the refcount mode
  EXPECT_GE(counter("pass_elementwise_fusion_rewrites"), 1.0);
  EXPECT_EQ(counter("pass_constant_folding_rewrites"), 1.0);  // the batch-mean gradient 1/N
}

TEST(StaticEngine, EveryLayerTypeOfTheCatalogBuildsATrainingGraph) {
  const std::string text =
      "model every_type\ninput 3 10 10\nclasses 3\n"
      "layer c1 convolution outputs=4 kernel=3 padding=same\n"
      "layer m1 conv_map outputs=4 kernel=3 fan_in=2 input=c1\n"
      "layer p1 pooling kernel=2\n"
      "layer b1 bias\n"
      "layer r1 relu\n"
      "layer t1 tanh\n"
      "layer s1 sigmoid\n"
      "layer n1 lrn size=3\n"
      "layer bn1 batch_norm\n"
      "layer g1 gelu\n"
      "layer sum add input=g1,bn1\n"
      "layer cat concat input=sum,p1\n"
      "layer gap global_avg_pool\n"
      "layer tk tokens\n"
      "layer pe pos_embed\n"
      "layer ln layer_norm\n"
      "layer at attention heads=2\n"
      "layer li linear outputs=6\n"
      "layer tm token_mean\n"
      "layer ip1 inner_product outputs=5\n"
      "layer d1 dropout keep=0.5\n"
      "layer ip2 inner_product outputs=3\n"
      "layer lsm log_softmax\n"
      "layer loss nll_loss\n";
  auto spec = testing::parse(text);
  std::set<std::string> used;
  for (const auto& l : spec.layers) used.insert(l.type);
  used.insert("softmax_loss");  // the other loss: every test model above ends with it
  for (const auto* info : models::layer_catalog()) EXPECT_TRUE(used.count(info->name)) << info->name;
  auto tg = static_graph::build_training_graph(models::CheckedModel(spec), 2, testing::caffe_sgd_options(2, kernels::DType::f32));
  EXPECT_EQ(tg.parameters.size(), 24u);  // c1 w b, m1 w b, b1 b, bn1 w b, pe w, ln w b, at 8, li w b, ip1 w b, ip2 w b
  std::set<static_graph::OpKind> ops;
  for (int id = 0; id < tg.graph.size(); ++id) ops.insert(tg.graph.node(id).op);
  for (auto op : {static_graph::OpKind::conv2d_map_grad_filter, static_graph::OpKind::batch_norm_grad,
                  static_graph::OpKind::batch_norm_update, static_graph::OpKind::concat_grad,
                  static_graph::OpKind::add_n, static_graph::OpKind::layer_norm_grad,
                  static_graph::OpKind::softmax_last_grad, static_graph::OpKind::batched_matmul,
                  static_graph::OpKind::permute, static_graph::OpKind::reshape})
    EXPECT_TRUE(ops.count(op)) << static_graph::op_name(op);
}

TEST(StaticEngine, NoAllocationInsideTrainStepOnceCompiled) {
  auto backend = kernels::make_backend("reference");
  auto spec = testing::parse(testing::replaced(testing::tiny_lenet_text(), "layer ip2", "layer drop dropout keep=0.5\nlayer ip2"));
  auto engine = make_engine("static", spec, *backend, testing::caffe_sgd_options(8, kernels::DType::f32));
  auto batch = testing::random_batch(spec, 8, kernels::DType::f32, 6);
  auto test_batch = testing::random_batch(spec, 20, kernels::DType::f32, 7);
  engine->train_step(batch.x, batch.labels, 0);
  engine->evaluate(test_batch.x, test_batch.labels);
  engine->train_step(batch.x, batch.labels, 1);
  const auto before = kernels::cpu_allocator().stats().allocations;
  for (int t = 2; t < 5; ++t) engine->train_step(batch.x, batch.labels, t);
  engine->evaluate(test_batch.x, test_batch.labels);
  EXPECT_EQ(kernels::cpu_allocator().stats().allocations - before, 0);
}

}  // namespace
}  // namespace ablate::graph
