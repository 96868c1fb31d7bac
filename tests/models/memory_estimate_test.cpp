// The memory estimate by hand for Caffe's LeNet, and its growth with the batch.
#include <gtest/gtest.h>

#include "models/memory_estimate.h"

namespace ablate::models {
namespace {

TEST(MemoryEstimate, LenetByHand) {
  const ModelSpec spec = load_model("lenet");
  const MemoryEstimate e = estimate_training_memory(spec, 64, kernels::DType::f32, "caffe_sgd");
  const double params = 20 * 25 + 20 + 50 * 20 * 25 + 50 + 800 * 500 + 500 + 500 * 10 + 10;  // 431,080
  EXPECT_DOUBLE_EQ(e.parameter_bytes, 4 * params);
  EXPECT_DOUBLE_EQ(e.gradient_bytes, 4 * params);
  EXPECT_DOUBLE_EQ(e.optimizer_bytes, 4 * params);
  // outputs per image: conv1 20*24*24, pool1 20*12*12, conv2 50*8*8, pool2 50*4*4, ip1 500,
  // relu1 500, ip2 10, plus the loss's [1] for the batch; input 28*28 per image.
  const double outputs = 64.0 * (20 * 576 + 20 * 144 + 50 * 64 + 50 * 16 + 500 + 500 + 10) + 1;
  EXPECT_DOUBLE_EQ(e.activation_bytes, 4 * (64.0 * 784 + 2 * outputs));
  // largest im2col: conv2, [64, 20*25, 8*8] (conv1's is 64 x 25 x 576, smaller)
  EXPECT_DOUBLE_EQ(e.workspace_bytes, 4 * 64.0 * 500 * 64);
  EXPECT_DOUBLE_EQ(e.total(), e.parameter_bytes * 3 + e.activation_bytes + e.workspace_bytes);
}

TEST(MemoryEstimate, AdamKeepsTwoStatesAndF64DoublesEverything) {
  const ModelSpec spec = load_model("lenet");
  const MemoryEstimate sgd = estimate_training_memory(spec, 8, kernels::DType::f32, "gd");
  const MemoryEstimate adam = estimate_training_memory(spec, 8, kernels::DType::f32, "adam");
  const MemoryEstimate f64 = estimate_training_memory(spec, 8, kernels::DType::f64, "gd");
  EXPECT_DOUBLE_EQ(adam.optimizer_bytes, 2 * sgd.optimizer_bytes);
  EXPECT_DOUBLE_EQ(f64.total(), 2 * sgd.total());
  EXPECT_GT(estimate_training_memory(spec, 800, kernels::DType::f32, "gd").activation_bytes, 90 * sgd.activation_bytes);
}

}  // namespace
}  // namespace ablate::models
