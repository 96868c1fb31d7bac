// The catalogue of layer types: one registered description per type, sorted by name, every
// one with a shape rule; the in-place and backward rules the layer-wise net relies on; a
// second registration of a name is refused.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "models/layer_catalog.h"

namespace ablate::models {
namespace {

TEST(LayerCatalog, EveryZooTypeIsRegisteredOnceInNameOrder) {
  const auto& catalog = layer_catalog();
  ASSERT_EQ(catalog.size(), 24u);
  for (std::size_t i = 1; i < catalog.size(); ++i) EXPECT_LT(catalog[i - 1]->name, catalog[i]->name);
  for (const LayerType* type : catalog) {
    EXPECT_TRUE(type->shape) << type->name;
    EXPECT_EQ(type->keys.back().key, "input") << type->name;
    EXPECT_EQ(find_layer_type(type->name), type);
  }
  EXPECT_EQ(find_layer_type("maxpool"), nullptr);
  EXPECT_EQ(loss_type_names(), "nll_loss or softmax_loss");
}

TEST(LayerCatalog, InPlaceAndBackwardRules) {
  std::set<std::string> in_place, reads_output, reads_input, activations;
  for (const LayerType* type : layer_catalog()) {
    if (type->in_place) in_place.insert(type->name);
    if (type->backward_reads_output) reads_output.insert(type->name);
    if (type->backward_reads_input) reads_input.insert(type->name);
    if (type->activation) activations.insert(type->name);
  }
  EXPECT_EQ(in_place, (std::set<std::string>{"bias", "dropout", "relu"}));
  EXPECT_EQ(reads_output, (std::set<std::string>{"log_softmax", "lrn", "pooling", "sigmoid", "tanh", "token_mean"}));
  EXPECT_EQ(reads_input, (std::set<std::string>{"gelu"}));
  EXPECT_EQ(activations, (std::set<std::string>{"gelu", "relu", "sigmoid", "tanh"}));
  LayerSpec tanh_layer;
  tanh_layer.type = "tanh";
  EXPECT_EQ(find_layer_type("tanh")->activation(tanh_layer), kernels::Activation::tanh);
}

TEST(LayerCatalog, ASecondRegistrationOfANameIsRefused) {
  LayerType again;
  again.name = "relu";
  again.shape = [](const LayerSpec&, const ModelSpec&, LayerShapes& s) { s.output = s.input; };
  EXPECT_THROW(register_layer_type(again), std::logic_error);
  LayerType shapeless;
  shapeless.name = "shapeless";
  EXPECT_THROW(register_layer_type(shapeless), std::logic_error);
}

}  // namespace
}  // namespace ablate::models
