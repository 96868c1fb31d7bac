// The dynamic strategy on branching models, in f64 on the reference backend: the
// tape's add of a list (CAddTable: dy to every input, an input listed twice gets both) and
// concat (JoinTable(2): each input its channel slice, more inputs than InputGrads keeps
// inline); modules given several inputs; every parameter's gradient of the residual and the
// concat models against central differences; and the same losses and weights as the static
// strategy over 5 steps from the same seed.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "dynamic_test_util.h"
#include "graph/dynamic/ops.h"
#include "graph/dynamic/sequential.h"
#include "graph_test_util.h"
#include "models/checked_model.h"
#include "static_branch_models.h"

namespace ablate::graph::dynamic {
namespace {

using testing::check_gradients;
using testing::Tape;

TEST(DynamicBranch, AddOfAListHandsDyToEveryInput) {
  Tape t;
  Variable x = t.leaf({2, 3}, 1), z = t.leaf({2, 3}, 2);
  // a is a node's output listed twice, then b: a's gradient is 2 dy, b's dy (not 2 dy: the
  // second pass of dy to a must not double the dy that b receives after it).
  auto f = [&] {
    Variable a = tanh(x), b = sigmoid(z);
    return sum(mul(add({a, a, b}), add({b, a})));
  };
  check_gradients(t.context, f, {x, z}, {"x", "z"});
  x.zero_grad();
  z.zero_grad();
  Variable a = reshape(x, {3, 2}), b = reshape(z, {3, 2});
  backward(sum(add({a, a, b})));
  for (std::int64_t i = 0; i < 6; ++i) {
    EXPECT_EQ(x.grad().at(i), 2.0) << i;
    EXPECT_EQ(z.grad().at(i), 1.0) << i;
  }
  Variable y = add({a, a, b});
  for (std::int64_t i = 0; i < 6; ++i) EXPECT_EQ(y.value().at(i), (x.value().at(i) + x.value().at(i)) + z.value().at(i));
  graph::testing::expect_error<std::invalid_argument>([&] { add(std::vector<Variable>{a}); }, {"add", "1 inputs"});
  graph::testing::expect_error<std::invalid_argument>([&] { add({a, x}); }, {"add", "[3, 2]", "[2, 3]"});
}

TEST(DynamicBranch, ConcatHandsEachInputItsSlice) {
  Tape t;
  Variable a = t.leaf({2, 1, 3, 2}, 3), b = t.leaf({2, 2, 3, 2}, 4), w = t.leaf({2, 3, 3, 2}, 5);
  Variable c = t.leaf({2, 2, 3, 2}, 6, /*requires_grad=*/false);
  // b listed twice and a constant among them; then a, listed six times (five of its gradients
  // accumulate: more than InputGrads keeps inline).
  auto f = [&] {
    Variable h = tanh(b);
    Variable joined = concat({a, h, c, h});  // [2, 7, 3, 2]
    Variable many = concat({a, a, a, a, a, a});  // [2, 6, 3, 2]
    return add(sum(mul(joined, joined)), sum(mul(many, concat({w, w}))));
  };
  check_gradients(t.context, f, {a, b, w}, {"a", "b", "w"});
  Variable joined = concat({a, b});
  ASSERT_EQ(joined.shape(), (kernels::Shape{2, 3, 3, 2}));
  EXPECT_EQ(joined.value().at(0), a.value().at(0));
  EXPECT_EQ(joined.value().at(6), b.value().at(0));   // sample 0, channel 1
  EXPECT_EQ(joined.value().at(18), a.value().at(6));  // sample 1, channel 0
  graph::testing::expect_error<std::invalid_argument>([&] { concat({a, t.leaf({2, 1, 2, 3}, 7)}); }, {"concat"});
}

TEST(DynamicBranch, ModulesTakeTheInputsTheirLayerNames) {
  Tape t;
  const models::CheckedModel model(graph::testing::parse(graph::testing::tiny_residual_text()));
  Sequential net(model, t.context, kernels::DType::f64, 3);
  const auto& modules = net.modules();
  auto find = [&](const std::string& name) -> Module& {
    for (const auto& m : modules)
      if (m->name() == name) return *m;
    throw std::logic_error("no module " + name);
  };
  EXPECT_STREQ(find("sum").type(), "CAddTable");
  EXPECT_STREQ(find("pool").type(), "SpatialAveragePooling");
  ForwardContext context;
  Variable x = t.leaf({2, 3, 4, 4}, 8), y = t.leaf({2, 3, 4, 4}, 9);
  graph::testing::expect_error<std::invalid_argument>([&] { find("sum").forward(std::vector<Variable>{x}, context); }, {"'sum'", "1 inputs"});
  graph::testing::expect_error<std::invalid_argument>([&] { find("sum").forward(x, context); }, {"'sum'", "one input"});
  graph::testing::expect_error<std::invalid_argument>([&] { find("relu1").forward(std::vector<Variable>{x, y}, context); }, {"'relu1'", "2 inputs"});
  Variable pooled = find("pool").forward(std::vector<Variable>{x}, context);
  ASSERT_EQ(pooled.shape(), (kernels::Shape{2, 3, 1, 1}));
  double mean = 0;
  for (std::int64_t i = 0; i < 16; ++i) mean += x.value().at(16 + i);  // sample 0, channel 1
  EXPECT_NEAR(pooled.value().at(1), mean / 16, 1e-15);
}

std::vector<std::string> branch_models() { return {graph::testing::tiny_residual_text(), graph::testing::tiny_concat_text()}; }

TEST(DynamicBranch, EveryParameterGradientMatchesCentralDifferences) {
  for (const std::string& text : branch_models()) {
    const models::ModelSpec spec = graph::testing::parse(text);
    SCOPED_TRACE(spec.name);
    auto backend = kernels::make_backend("reference");
    auto engine = make_engine("dynamic", spec, *backend, graph::testing::branch_options());
    graph::testing::expect_every_parameter_gradient(*engine, graph::testing::random_batch(spec, 2, kernels::DType::f64, 11));
  }
}

TEST(DynamicBranch, TrainsAsTheStaticStrategyFromTheSameSeed) {
  for (const std::string& text : branch_models()) {
    const models::ModelSpec spec = graph::testing::parse(text);
    SCOPED_TRACE(spec.name);
    auto backend = kernels::make_backend("reference");
    auto dynamic = make_engine("dynamic", spec, *backend, graph::testing::branch_options(7));
    auto static_engine = make_engine("static", spec, *backend, graph::testing::branch_options(7));
    graph::testing::expect_same_training(graph::testing::train_branch_model(*dynamic, spec),
                                  graph::testing::train_branch_model(*static_engine, spec), 1e-9);
  }
}

}  // namespace
}  // namespace ablate::graph::dynamic
