// Every catalogued layer type has a builder in every strategy of the table, in this test
// binary (linked as `ablate` is: models and graph whole, so no self-registration is dropped).
// The check itself is shown to find gaps, and a strategy's activation builder serves every
// activation type of the catalogue.
#include <gtest/gtest.h>

#include <stdexcept>

#include "graph/engine.h"
#include "graph/layer_registry.h"
#include "models/layer_catalog.h"

namespace ablate::graph {
namespace {

TEST(LayerRegistry, EveryCataloguedTypeHasABuilderInEveryStrategy) {
  ASSERT_FALSE(models::layer_catalog().empty());
  ASSERT_EQ(strategies().size(), 3u);
  for (const StrategyInfo& strategy : strategies()) {
    std::string missing;
    for (const std::string& type : strategy.missing_builders()) missing += type + " ";
    EXPECT_EQ(missing, "") << "the " << strategy.name << " strategy has no builder for these catalogued types";
  }
}

TEST(LayerRegistry, FindsTheGapsOfARegistry) {
  LayerRegistry<int> empty("test");
  std::vector<std::string> all;
  for (const models::LayerType* type : models::layer_catalog()) all.push_back(type->name);
  EXPECT_EQ(empty.missing_builders(), all);

  LayerRegistry<int> partial("test");
  partial.add("convolution", 1);
  partial.set_activation_builder(2);
  std::vector<std::string> expected;
  for (const models::LayerType* type : models::layer_catalog())
    if (type->name != "convolution" && !type->activation) expected.push_back(type->name);
  EXPECT_EQ(partial.missing_builders(), expected);
  EXPECT_EQ(*partial.find("convolution"), 1);
  for (const char* activation : {"relu", "tanh", "sigmoid"}) EXPECT_EQ(*partial.find(activation), 2) << activation;
  EXPECT_EQ(partial.find("pooling"), nullptr);

  models::LayerSpec layer;
  layer.name = "p1";
  layer.type = "pooling";
  try {
    partial.at(layer);
    ADD_FAILURE() << "no builder for pooling, nothing thrown";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("the test strategy has no builder for layer type 'pooling'"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(partial.add("convolution", 3), std::logic_error);
  EXPECT_THROW(partial.set_activation_builder(4), std::logic_error);
}

}  // namespace
}  // namespace ablate::graph
