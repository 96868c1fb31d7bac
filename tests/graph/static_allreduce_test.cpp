// The static graph's data-parallel all-reduce (graph/static/training_graph.h): as one
// rank (no MPI: the all-reduce of one rank is the identity and the mean scales by 1), so these
// run in every build. The training graph puts one allreduce_mean node per bucket between the
// gradients and the apply nodes, chained last bucket first; every pass set and memory mode
// (planned arena, session buffers, refcount) and both executors keep one node per bucket,
// call it once per step, and train exactly as without it (bit for bit: the values only pass
// through the node's buffer). The multi-rank equivalence is tests/distributed/.
#include <gtest/gtest.h>

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "graph/distributed/data_parallel.h"
#include "graph/static/training_graph.h"
#include "kernels/registry.h"
#include "models/model_spec.h"
#include "static_test_util.h"

namespace ablate::graph::static_graph {
namespace {

const char* kModel =
    "model tiny_allreduce\n"
    "input 1 8 8\n"
    "classes 4\n"
    "layer conv1 convolution outputs=4 kernel=3 weight_init=xavier bias_init=constant:0.1\n"
    "layer relu1 relu\n"
    "layer pool1 pooling mode=max kernel=2 stride=2\n"
    "layer ip1 inner_product outputs=8 weight_init=xavier bias_init=constant:0\n"
    "layer relu2 relu\n"
    "layer ip2 inner_product outputs=4 weight_init=xavier bias_init=constant:0\n"
    "layer loss softmax_loss\n";

TEST(StaticAllreduceGraph, ApplyNodesReadTheChainedBucketsOutputs) {
  const models::CheckedModel model(models::parse_model(kModel, "tiny.model"));
  const EngineOptions options = testing::caffe_sgd_options(4, kernels::DType::f32);
  // conv1.{weight,bias}, ip1.{weight,bias}, ip2.{weight,bias}: buckets [0,2) [2,3) [3,6)
  const ParameterRanges buckets{{0, 2}, {2, 3}, {3, 6}};
  const TrainingGraph tg = build_training_graph(model, 4, options, buckets);
  const Graph& g = tg.graph;
  std::vector<int> nodes;
  for (int id = 0; id < g.size(); ++id)
    if (g.node(id).op == OpKind::allreduce_mean) nodes.push_back(id);
  ASSERT_EQ(nodes.size(), 3u);
  // Added last bucket first, each after the one added before it.
  EXPECT_EQ(g.node(nodes[0]).name, "allreduce/bucket2");
  EXPECT_TRUE(g.node(nodes[0]).control.empty());
  for (std::size_t k = 1; k < nodes.size(); ++k) EXPECT_EQ(g.node(nodes[k]).control, std::vector<int>{nodes[k - 1]});
  EXPECT_EQ(g.node(nodes[2]).inputs.size(), 2u);
  EXPECT_EQ(g.node(nodes[0]).outputs.size(), 3u);
  int applies = 0;
  for (int id = 0; id < g.size(); ++id)
    if (is_update(g.node(id).op) && g.node(id).op != OpKind::batch_norm_update) {
      ++applies;
      EXPECT_EQ(g.node(g.node(id).inputs[1].node).op, OpKind::allreduce_mean) << g.node(id).name;
    }
  EXPECT_EQ(applies, 6);
  for (std::size_t i = 1; i < g.fetches.size(); ++i) EXPECT_EQ(g.node(g.fetches[i].node).op, OpKind::allreduce_mean);
  EXPECT_THROW(build_training_graph(model, 4, options, {{0, 2}, {3, 6}}), std::logic_error) << "a gap";
  EXPECT_THROW(build_training_graph(model, 4, options, {{0, 2}, {2, 5}}), std::logic_error) << "short";
}

struct Runtime {
  std::string name;
  std::vector<std::string> disabled_passes;
  ExecutorKind executor = ExecutorKind::sequential;
};

void PrintTo(const Runtime& r, std::ostream* os) { *os << r.name; }

class StaticAllreduceRuntime : public ::testing::TestWithParam<Runtime> {};

std::vector<double> losses(const Runtime& r, bool allreduce, double* nodes = nullptr, std::int64_t* calls = nullptr,
                           std::int64_t* buckets = nullptr) {
  const models::ModelSpec spec = models::parse_model(kModel, "tiny.model");
  auto backend = kernels::make_backend("reference", 1);
  EngineOptions options = testing::caffe_sgd_options(8, kernels::DType::f32);
  options.disabled_passes = r.disabled_passes;
  options.executor = r.executor;
  options.inter_op_threads = 2;
  auto engine = make_engine("static", spec, *backend, options);
  std::shared_ptr<distributed::GradientAverager> averager;
  if (allreduce) averager = distributed::attach_data_parallel(*engine, {"ring", 200});  // several buckets
  std::vector<double> out;
  kernels::Tensor x({8, 1, 8, 8}, kernels::DType::f32), labels({8}, kernels::DType::i32);
  for (int step = 0; step < 5; ++step) {
    for (std::int64_t i = 0; i < x.numel(); ++i) x.set(i, ((i * 7 + step * 3) % 17) / 17.0);
    for (std::int64_t i = 0; i < 8; ++i) labels.set(i, static_cast<double>((i + step) % 4));
    out.push_back(engine->train_step(x, labels, step));
  }
  if (averager) {
    for (const auto& [key, value] : engine->report().counters)
      if (key == "graph_allreduce_nodes") *nodes = value;
    *calls = averager->stats().calls;
    *buckets = averager->buckets();
  }
  return out;
}

TEST_P(StaticAllreduceRuntime, OneNodePerBucketSurvivesThePassesAndTrainsAsWithout) {
  double nodes = -1;
  std::int64_t calls = 0, buckets = 0;
  const std::vector<double> with = losses(GetParam(), true, &nodes, &calls, &buckets);
  const std::vector<double> without = losses(GetParam(), false);
  EXPECT_GT(buckets, 2);
  EXPECT_EQ(nodes, static_cast<double>(buckets));
  EXPECT_EQ(calls, 5 * buckets);
  EXPECT_EQ(with, without);
  EXPECT_NE(with.front(), with.back()) << "it trains";
}

INSTANTIATE_TEST_SUITE_P(
    Runtimes, StaticAllreduceRuntime,
    ::testing::Values(Runtime{"arena", {}}, Runtime{"arena_parallel", {}, ExecutorKind::parallel},
                      Runtime{"session_buffers", {"memory_planning"}},
                      Runtime{"refcount_parallel", {"memory_planning", "session_buffers"}, ExecutorKind::parallel},
                      Runtime{"no_rewrites", {"constant_folding", "cse", "dce", "elementwise_fusion", "inplace"}}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace ablate::graph::static_graph
