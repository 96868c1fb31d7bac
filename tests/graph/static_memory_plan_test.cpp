// Memory planning of the static graph: on a training graph the planned arena is smaller than
// every tensor in a buffer of its own, no two tensors that are live at the same time share a
// byte (checked on the plan and on the tensors' addresses), in-place outputs share their
// input's buffer, and training gives the same losses with and without planning.
#include <cstdint>

#include <gtest/gtest.h>

#include "graph/static/session.h"
#include "graph/static/training_graph.h"
#include "graph_test_util.h"
#include "kernels/registry.h"
#include "models/parameters.h"
#include "static_test_util.h"

namespace ablate::graph {
namespace {

using static_graph::BufferGroup;
using static_graph::Session;
using static_graph::Value;

models::ModelSpec planning_model() {
  return testing::parse(testing::replaced(testing::tiny_lenet_text(), "layer ip2",
                                          "layer drop dropout keep=0.5\nlayer ip2"));
}

std::unique_ptr<Session> training_session(const models::ModelSpec& spec, kernels::Backend& backend,
                                          static_graph::VariableStore& store, std::vector<std::string> disabled) {
  const EngineOptions options = testing::caffe_sgd_options(8, kernels::DType::f32);
  auto tg = static_graph::build_training_graph(models::CheckedModel(spec), 8, options);
  for (const auto& p : models::make_initial_parameters(spec, kernels::DType::f32, 1)) store.assign(p.name, p.value, backend);
  for (int id = 0; id < tg.graph.size(); ++id) {
    const auto& n = tg.graph.node(id);
    if (n.op == static_graph::OpKind::variable) store.create(n.attrs.key, n.outputs[0].shape, n.outputs[0].dtype, backend);
  }
  return std::make_unique<Session>(std::move(tg.graph), backend, store,
                                   static_graph::SessionOptions{std::move(disabled), ExecutorKind::sequential, 1});
}

bool intervals_meet(const BufferGroup& a, const BufferGroup& b) { return a.first <= b.last && b.first <= a.last; }
bool bytes_meet(const BufferGroup& a, const BufferGroup& b) {
  return a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes;
}

TEST(StaticMemoryPlan, PlannedArenaIsSmallerAndLiveTensorsNeverShareBytes) {
  auto backend = kernels::make_backend("reference");
  const auto spec = planning_model();
  static_graph::VariableStore store, other_store;
  auto planned = training_session(spec, *backend, store, {});
  auto unplanned = training_session(spec, *backend, other_store, {"memory_planning"});
  const auto& plan = planned->memory_plan();
  ASSERT_GT(plan.groups.size(), 10u);
  EXPECT_LT(planned->stats().planned_bytes, planned->stats().unplanned_bytes);
  EXPECT_EQ(unplanned->stats().planned_bytes, unplanned->stats().unplanned_bytes);
  EXPECT_EQ(planned->stats().unplanned_bytes, unplanned->stats().unplanned_bytes);
  EXPECT_LT(planned->stats().held_bytes, unplanned->stats().held_bytes);

  // On the plan: groups live at once occupy disjoint bytes; some groups do reuse bytes.
  int reused = 0;
  for (std::size_t i = 0; i < plan.groups.size(); ++i)
    for (std::size_t j = i + 1; j < plan.groups.size(); ++j) {
      const BufferGroup &a = plan.groups[i], &b = plan.groups[j];
      if (intervals_meet(a, b))
        EXPECT_FALSE(bytes_meet(a, b)) << "groups " << i << " and " << j << " are live together and overlap";
      else
        reused += bytes_meet(a, b);
    }
  EXPECT_GT(reused, 0);

  // On the tensors: the value of every group lies where the plan put it, and in-place outputs
  // share their input's address.
  const auto& g = planned->graph();
  int aliases = 0;
  for (const BufferGroup& group : plan.groups) {
    const char* first = static_cast<const char*>(planned->tensor(group.members.front()).raw_data());
    for (const Value& member : group.members) {
      EXPECT_EQ(planned->tensor(member).raw_data(), first) << g.node(member.node).name;
      aliases += member != group.members.front();
    }
  }
  EXPECT_GT(aliases, 0) << "the in-place pass should have made some outputs share a buffer";
  for (std::size_t i = 0; i < plan.groups.size(); ++i)
    for (std::size_t j = i + 1; j < plan.groups.size(); ++j) {
      if (!intervals_meet(plan.groups[i], plan.groups[j])) continue;
      const auto& a = planned->tensor(plan.groups[i].members.front());
      const auto& b = planned->tensor(plan.groups[j].members.front());
      const char* pa = static_cast<const char*>(a.raw_data());
      const char* pb = static_cast<const char*>(b.raw_data());
      EXPECT_TRUE(pa + a.bytes() <= pb || pb + b.bytes() <= pa)
          << g.node(plan.groups[i].members.front().node).name << " and " << g.node(plan.groups[j].members.front().node).name;
    }
}

TEST(StaticMemoryPlan, TrainingGivesTheSameLossesWithAndWithoutPlanning) {
  auto backend = kernels::make_backend("reference");
  const auto spec = planning_model();
  auto run = [&](std::vector<std::string> disabled, ExecutorKind executor) {
    EngineOptions options = testing::caffe_sgd_options(8, kernels::DType::f32);
    options.disabled_passes = std::move(disabled);
    options.executor = executor;
    options.inter_op_threads = 2;
    auto engine = make_engine("static", spec, *backend, options);
    std::vector<double> losses;
    for (int t = 0; t < 4; ++t) {
      const auto b = testing::random_batch(spec, 8, kernels::DType::f32, 40 + static_cast<std::uint64_t>(t));
      losses.push_back(engine->train_step(b.x, b.labels, t));
    }
    return losses;
  };
  const auto planned = run({}, ExecutorKind::sequential);
  EXPECT_EQ(run({"memory_planning"}, ExecutorKind::sequential), planned);
  EXPECT_EQ(run({"inplace", "memory_planning"}, ExecutorKind::sequential), planned);
  EXPECT_EQ(run({}, ExecutorKind::parallel), planned);  // the reuse orderings keep the inter-op pool safe
}

}  // namespace
}  // namespace ablate::graph
