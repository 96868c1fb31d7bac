// The static strategy's core budget: the parallel executor's inter-op pool and each
// op's intra-op threads share the run's cores, so no more threads are busy than cores; the
// engine reports the pool as asked and as applied.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include <gtest/gtest.h>

#include "graph/engine.h"
#include "graph/static/executor.h"
#include "graph_test_util.h"
#include "kernels/registry.h"
#include "static_test_util.h"

namespace ablate::graph {
namespace {

using static_graph::inter_op_threads_within;

TEST(StaticThreadBudget, ThePoolTimesTheOpsThreadsFitsTheCores) {
  EXPECT_EQ(inter_op_threads_within(2, 2, 2), 1) << "TF's 2 x 2 on 2 cores: one worker";
  EXPECT_EQ(inter_op_threads_within(2, 2, 1), 2) << "single-threaded ops: two at once";
  EXPECT_EQ(inter_op_threads_within(8, 4, 2), 2);
  EXPECT_EQ(inter_op_threads_within(1, 8, 1), 1) << "never more than asked";
  EXPECT_EQ(inter_op_threads_within(3, 2, 4), 1) << "at least one worker, whatever the ops take";
  for (int asked : {1, 2, 3, 5})
    for (int cores : {1, 2, 3, 8})
      for (int intra : {1, 2, 3}) {
        const int pool = inter_op_threads_within(asked, cores, intra);
        EXPECT_GE(pool, 1);
        EXPECT_LE(pool, asked);
        if (intra <= cores) {
          EXPECT_LE(pool * intra, cores) << asked << " " << cores << " " << intra;
        }
      }
  testing::expect_error<std::invalid_argument>([] { inter_op_threads_within(0, 2, 1); }, {"inter_op_threads 0"});
  testing::expect_error<std::invalid_argument>([] { inter_op_threads_within(2, 0, 1); }, {"0 cores", "at least 1"});
}

// A device backend (cuda: one stream, one set of handles, one workspace) gets one worker
// whatever was asked; a CPU backend the pool within the core budget, or as asked without one.
TEST(StaticThreadBudget, ADeviceBackendGetsOneWorker) {
  using static_graph::applied_inter_op_threads;
  EXPECT_EQ(applied_inter_op_threads(16, 16, /*device_backend*/ true, 1), 1);
  EXPECT_EQ(applied_inter_op_threads(16, 0, true, 1), 1) << "no budget: still one call at a time";
  EXPECT_EQ(applied_inter_op_threads(4, 2, false, 1), 2) << "a CPU backend: within the budget";
  EXPECT_EQ(applied_inter_op_threads(4, 0, false, 2), 4) << "no budget: as asked";
  testing::expect_error<std::invalid_argument>([] { applied_inter_op_threads(0, 2, true, 1); }, {"inter_op_threads 0"});
}

// Independent nodes that each wait a little: the most that ran at once is the pool's size.
TEST(StaticThreadBudget, TheExecutorRunsNoMoreNodesAtOnceThanItsBudgetedPool) {
  const int pool = inter_op_threads_within(4, 2, 1);
  ASSERT_EQ(pool, 2);
  std::vector<int> order(8);
  for (int i = 0; i < 8; ++i) order[static_cast<std::size_t>(i)] = i;
  auto executor = static_graph::make_executor(ExecutorKind::parallel, pool, order, std::vector<std::vector<int>>(8));
  std::atomic<int> running{0}, most{0};
  executor->run([&](int) {
    const int now = ++running;
    int seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    --running;
  });
  EXPECT_EQ(executor->threads(), 2);
  EXPECT_LE(most.load(), 2);
  EXPECT_GE(most.load(), 1);
}

// A pool of one is the calling thread: no node is handed to another thread (the budget's cut
// pool costs what the sequential executor costs).
TEST(StaticThreadBudget, APoolOfOneRunsEveryNodeOnTheCaller) {
  std::vector<int> order = {0, 1, 2, 3};
  auto executor = static_graph::make_executor(ExecutorKind::parallel, 1, order, {{}, {0}, {0}, {1, 2}});
  EXPECT_EQ(executor->threads(), 1);
  std::vector<int> ran;
  bool elsewhere = false;
  const auto caller = std::this_thread::get_id();
  for (int run = 0; run < 2; ++run)
    executor->run([&](int id) {
      elsewhere = elsewhere || std::this_thread::get_id() != caller;
      ran.push_back(id);
    });
  EXPECT_FALSE(elsewhere);
  EXPECT_EQ(ran, (std::vector<int>{0, 1, 2, 3, 0, 1, 2, 3})) << "the sequential order";
}

std::string setting(const EngineReport& r, const std::string& key) {
  for (const auto& [k, v] : r.settings)
    if (k == key) return v;
  return "<missing>";
}

TEST(StaticThreadBudget, TheEngineCutsItsPoolToTheBudgetAndReportsIt) {
  auto spec = testing::parse(testing::tiny_lenet_text());
  auto options = testing::caffe_sgd_options(4, kernels::DType::f32);
  options.executor = ExecutorKind::parallel;
  options.inter_op_threads = 2;
  options.core_budget = 2;
  auto eigen = kernels::make_backend("eigen", 2);
  const EngineReport two_by_two = make_engine("static", spec, *eigen, options)->report();
  EXPECT_EQ(setting(two_by_two, "inter_op_threads"), "2") << "as asked";
  EXPECT_EQ(setting(two_by_two, "inter_op_threads_applied"), "1");
  EXPECT_EQ(setting(two_by_two, "thread_budget"), "2 cores: 1 inter-op x 2 intra-op threads");
  // The reference backend's ops run on one thread: two of them fit on two cores.
  auto reference = kernels::make_backend("reference");
  EXPECT_EQ(setting(make_engine("static", spec, *reference, options)->report(), "inter_op_threads_applied"), "2");
  options.core_budget = 0;
  const EngineReport unbounded = make_engine("static", spec, *eigen, options)->report();
  EXPECT_EQ(setting(unbounded, "inter_op_threads_applied"), "2") << "no budget: the pool as asked";
  EXPECT_EQ(setting(unbounded, "thread_budget"), "no budget: 2 inter-op x 2 intra-op threads");
  options.executor = ExecutorKind::sequential;
  options.core_budget = 2;
  EXPECT_EQ(setting(make_engine("static", spec, *eigen, options)->report(), "inter_op_threads_applied"), "1");
}

}  // namespace
}  // namespace ablate::graph
