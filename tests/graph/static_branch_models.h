// The small branching models of the static_branch and dynamic_branch tests: a
// residual block and two concatenated convolution branches, tiny enough for the reference
// backend in f64, every weight and bias from a seeded gaussian so that no gradient is trivial;
// and what both tests do with them: a gradient check of every parameter through the Engine,
// and a few training steps whose losses and weights are compared.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "graph/engine.h"
#include "graph/engine_gradient_check.h"
#include "graph_test_util.h"

namespace ablate::graph::testing {

// conv0 -> relu0 -> conv1 -> relu1 -> conv2 -> add(conv2, relu0) -> relu2 -> global_avg_pool ->
// ip -> softmax_loss on 2x6x6 inputs, 3 classes: relu0's output is read by conv1 and by the
// shortcut (the one fan-out; its gradient is the sum of both branches').
inline std::string tiny_residual_text() {
  const std::string init = " weight_init=gaussian:0.4 bias_init=gaussian:0.1\n";
  return "model tiny_residual\ninput 2 6 6\nclasses 3\n"
         "layer conv0 convolution outputs=3 kernel=3 pad=1" + init +
         "layer relu0 relu\n"
         "layer conv1 convolution outputs=3 kernel=3 pad=1" + init +
         "layer relu1 relu\n"
         "layer conv2 convolution outputs=3 kernel=3 pad=1" + init +
         "layer sum add input=conv2,relu0\n"
         "layer relu2 relu\n"
         "layer pool global_avg_pool\n"
         "layer ip inner_product outputs=3" + init +
         "layer loss softmax_loss\n";
}

// Two convolutions of the model input (3x3 padded to 2 planes, 1x1 to 3 planes) joined along
// the channel axis -> 5x6x6 -> ip -> softmax_loss, 3 classes.
inline std::string tiny_concat_text() {
  const std::string init = " weight_init=gaussian:0.4 bias_init=gaussian:0.1\n";
  return "model tiny_concat\ninput 2 6 6\nclasses 3\n"
         "layer left convolution outputs=2 kernel=3 pad=1 input=data" + init +
         "layer right convolution outputs=3 kernel=1 input=data" + init +
         "layer join concat input=left,right\n"
         "layer ip inner_product outputs=3" + init +
         "layer loss softmax_loss\n";
}

// f64 options of the branch tests: SGD with momentum (Caffe's), no weight decay (not part of
// the loss a gradient check differentiates), `seed` for the initial weights.
inline EngineOptions branch_options(std::uint64_t seed = 3) {
  EngineOptions o;
  o.dtype = kernels::DType::f64;
  o.batch = 2;
  o.seed = seed;
  o.optimizer.type = "caffe_sgd";
  o.optimizer.lr.base_lr = 0.1;
  o.optimizer.momentum = 0.9;
  return o;
}

// Every parameter of `engine` (f64, a host backend): 6 entries each (all of a smaller one)
// within 1e-6 relative of central differences of the training loss, and not all zero.
inline void expect_every_parameter_gradient(Engine& engine, const Batch& batch) {
  ASSERT_FALSE(engine.parameters().empty());
  for (Parameter* p : engine.parameters()) {
    SCOPED_TRACE(engine.strategy() + " " + p->name);
    const auto samples = check_parameter_gradient(engine, p->name, batch.x, batch.labels, 0, 6);
    ASSERT_FALSE(samples.empty());
    double largest = 0;
    for (const GradientSample& s : samples) {
      EXPECT_LT(s.relative_error, 1e-6) << s.index << ": " << s.analytic << " vs " << s.numeric;
      largest = std::max(largest, std::abs(s.analytic));
    }
    EXPECT_GT(largest, 1e-8) << "a check of zero gradients proves nothing";
  }
}

// The losses of `steps` training steps on seeded batches and the final parameters (host copies).
struct BranchRun {
  std::vector<double> losses;
  std::vector<kernels::Tensor> weights;
};
inline BranchRun train_branch_model(Engine& engine, const models::ModelSpec& spec, int steps = 5) {
  BranchRun out;
  for (int step = 0; step < steps; ++step) {
    const Batch batch = random_batch(spec, 2, kernels::DType::f64, 500 + static_cast<std::uint64_t>(step));
    out.losses.push_back(engine.train_step(batch.x, batch.labels, step));
  }
  for (Parameter* p : engine.parameters()) out.weights.push_back(p->value.clone());
  return out;
}

// Equal losses and weights within `tolerance` relative, and the losses moved (training ran).
inline void expect_same_training(const BranchRun& a, const BranchRun& b, double tolerance) {
  auto close = [&](double x, double y) { return std::abs(x - y) <= tolerance * std::max({std::abs(x), std::abs(y), 1e-30}); };
  ASSERT_EQ(a.losses.size(), b.losses.size());
  for (std::size_t i = 0; i < a.losses.size(); ++i)
    EXPECT_TRUE(close(a.losses[i], b.losses[i])) << "step " << i << ": " << a.losses[i] << " vs " << b.losses[i];
  ASSERT_EQ(a.weights.size(), b.weights.size());
  for (std::size_t k = 0; k < a.weights.size(); ++k) {
    ASSERT_EQ(a.weights[k].shape(), b.weights[k].shape()) << "parameter " << k;
    for (std::int64_t j = 0; j < a.weights[k].numel(); ++j)
      ASSERT_TRUE(close(a.weights[k].at(j), b.weights[k].at(j)))
          << "parameter " << k << " [" << j << "]: " << a.weights[k].at(j) << " vs " << b.weights[k].at(j);
  }
  EXPECT_NE(a.losses.front(), a.losses.back());
}

}  // namespace ablate::graph::testing
