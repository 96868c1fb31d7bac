// Model FLOPs by hand for Caffe's LeNet and a conv_map layer.
#include <gtest/gtest.h>

#include "models/flops.h"
#include "models/model_spec.h"

namespace ablate::models {
namespace {

TEST(ModelFlops, LenetByHand) {
  const ModelFlops f = model_flops(load_model("lenet"), 64);
  const double conv1 = 2.0 * 20 * 1 * 25 * 24 * 24, conv2 = 2.0 * 50 * 20 * 25 * 8 * 8;
  const double ip1 = 2.0 * 800 * 500, ip2 = 2.0 * 500 * 10;
  EXPECT_DOUBLE_EQ(f.forward, 64 * (conv1 + conv2 + ip1 + ip2));
  EXPECT_DOUBLE_EQ(f.training_step(), 3 * f.forward);
  ASSERT_EQ(f.per_layer.size(), 4u);
  EXPECT_EQ(f.per_layer[1].first, "conv2");
  EXPECT_DOUBLE_EQ(f.per_layer[1].second, 64 * conv2);
}

TEST(ModelFlops, ConvMapCountsItsConnectionsOnly) {
  const ModelSpec spec = parse_model(
      "model m\ninput 16 9 9\nclasses 2\nlayer c conv_map outputs=8 kernel=3 fan_in=4\n"
      "layer fc inner_product outputs=2\nlayer loss softmax_loss\n",
      "m.model");
  const ModelFlops f = model_flops(spec, 2);
  EXPECT_DOUBLE_EQ(f.per_layer[0].second, 2.0 * 2 * (8 * 4) * 9 * 7 * 7);
  EXPECT_DOUBLE_EQ(f.per_layer[1].second, 2.0 * 2 * (8 * 7 * 7) * 2);
}

}  // namespace
}  // namespace ablate::models
