// The table of strategies: names, the switches each uses, option checks run once by
// make_engine with errors naming the known values, and the executor's parse.
#include <gtest/gtest.h>

#include "graph/engine.h"
#include "graph_test_util.h"
#include "kernels/registry.h"

namespace ablate::graph {
namespace {

using testing::expect_error;

TEST(StrategyTable, NamesAndSwitches) {
  EXPECT_EQ(strategy_names(), (std::vector<std::string>{"layerwise", "dynamic", "static"}));
  EXPECT_EQ(find_strategy("static").mirrors, "TensorFlow 1.x, Theano");
  expect_error<std::invalid_argument>([] { find_strategy("tape"); },
                                      {"strategy 'tape'", "layerwise, dynamic, static"});
  EXPECT_EQ(strategies_using("per_sample"), (std::vector<std::string>{"dynamic"}));
  EXPECT_EQ(strategies_using("caching_allocator"), (std::vector<std::string>{"dynamic"}));
  for (const char* key : {"passes", "executor", "inter_op_threads"})
    EXPECT_EQ(strategies_using(key), (std::vector<std::string>{"static"})) << key;
  EXPECT_TRUE(strategies_using("weight_average_decay").empty()) << "every strategy averages weights";
  EXPECT_EQ(find_strategy("dynamic").switches[1].flag, "per-sample");
}

TEST(StrategyTable, ExecutorParsesToItsKind) {
  EXPECT_EQ(parse_executor("sequential"), ExecutorKind::sequential);
  EXPECT_EQ(parse_executor("parallel"), ExecutorKind::parallel);
  EXPECT_STREQ(executor_name(ExecutorKind::parallel), "parallel");
  expect_error<std::invalid_argument>([] { parse_executor("threaded", "--executor"); },
                                      {"--executor 'threaded'", "sequential or parallel"});
}

TEST(StrategyTable, OptionsAreCheckedBeforeAnyStrategyBuilds) {
  EngineOptions options;
  options.batch = 0;
  for (const std::string& strategy : strategy_names())
    expect_error<std::invalid_argument>([&] { check_engine_options(strategy, options); }, {"batch size 0"});
  options.batch = 2;
  options.dtype = kernels::DType::i32;
  expect_error<std::invalid_argument>([&] { check_engine_options("dynamic", options); },
                                      {"precision i32", "f32 or f64"});
  options.dtype = kernels::DType::f64;
  options.disabled_passes = {"cse", "unrolling"};
  expect_error<std::invalid_argument>([&] { check_engine_options("static", options); },
                                      {"'unrolling'", "constant_folding, cse, dce"});
  EXPECT_NO_THROW(check_engine_options("layerwise", options)) << "only the static strategy reads passes";
  options.disabled_passes = {"cse"};
  options.inter_op_threads = 0;
  expect_error<std::invalid_argument>([&] { check_engine_options("static", options); }, {"inter_op_threads 0"});
  options.inter_op_threads = 1;
  EXPECT_NO_THROW(check_engine_options("static", options));
  // make_engine runs the same checks before the model is even looked at.
  auto backend = kernels::make_backend("reference");
  models::ModelSpec nothing;
  options.batch = -1;
  expect_error<std::invalid_argument>([&] { make_engine("layerwise", nothing, *backend, options); },
                                      {"batch size -1"});
}

}  // namespace
}  // namespace ablate::graph
