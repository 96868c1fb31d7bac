// What the blocked-layout tests of the static (blocked_layout_test.cpp), layer-wise
// (layerwise_blocked_layout_test.cpp) and dynamic (dynamic_blocked_layout_test.cpp) strategies
// share: a residual network with batch
// normalisation (16 and 32 channels, a projection shortcut), a cifar10_quick-like chain, a
// LeNet-like chain whose channels no block divides (channels-last), a few f32 training steps and an
// evaluation, and the tolerance within which a blocked run equals the plain one.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "graph/engine.h"
#include "graph_test_util.h"

namespace ablate::graph::testing::blocked {

// stem conv(16) -> bn -> relu; block: conv(32, stride 2) -> bn -> relu -> conv(32) -> bn, plus a
// 1x1 stride-2 projection of the stem -> bn; add -> relu -> global average pool -> ip -> loss.
inline std::string residual_bn_text() {
  return "model residual_bn\ninput 3 8 8\nclasses 4\n"
         "layer conv0 convolution outputs=16 kernel=3 pad=1 bias=false weight_init=msra\n"
         "layer bn0 batch_norm\n"
         "layer relu0 relu\n"
         "layer conv1 convolution outputs=32 kernel=3 pad=1 stride=2 bias=false weight_init=msra input=relu0\n"
         "layer bn1 batch_norm\n"
         "layer relu1 relu\n"
         "layer conv2 convolution outputs=32 kernel=3 pad=1 bias=false weight_init=msra\n"
         "layer bn2 batch_norm\n"
         "layer proj convolution outputs=32 kernel=1 stride=2 bias=false weight_init=msra input=relu0\n"
         "layer bnp batch_norm\n"
         "layer sum add input=bn2,bnp\n"
         "layer relu2 relu\n"
         "layer pool global_avg_pool\n"
         "layer ip inner_product outputs=4\n"
         "layer loss softmax_loss\n";
}

// cifar10_quick's pattern at 8x8: conv -> max pool -> relu -> LRN, conv -> relu -> ave pool
// (Caffe's ceil-mode windows), a fully connected classifier.
inline std::string quick_text() {
  return "model quick_like\ninput 3 8 8\nclasses 4\n"
         "layer conv1 convolution outputs=16 kernel=3 pad=1\n"
         "layer pool1 pooling mode=max kernel=3 stride=2\n"
         "layer relu1 relu\n"
         "layer norm1 lrn size=3 alpha=0.0001 beta=0.75\n"
         "layer conv2 convolution outputs=32 kernel=3 pad=1\n"
         "layer relu2 relu\n"
         "layer pool2 pooling mode=avg kernel=3 stride=2\n"
         "layer ip inner_product outputs=4\n"
         "layer loss softmax_loss\n";
}

// LeNet's pattern with channel counts that no block divides (20 and 12): channels-last values
// through convolution, max pooling, ReLU, LRN, batch norm and a Caffe-ceil average pool (the
// ablate loops at a block known at run time).
inline std::string lenet_like_text() {
  return "model lenet_like\ninput 1 12 12\nclasses 4\n"
         "layer conv1 convolution outputs=20 kernel=5\n"
         "layer pool1 pooling mode=max kernel=2 stride=2\n"
         "layer conv2 convolution outputs=12 kernel=3 pad=1\n"
         "layer relu2 relu\n"
         "layer norm2 lrn size=3 alpha=0.0001 beta=0.75\n"
         "layer bn2 batch_norm\n"
         "layer pool2 pooling mode=avg kernel=3 stride=2\n"
         "layer ip inner_product outputs=4\n"
         "layer loss softmax_loss\n";
}

inline EngineOptions f32_options() {
  EngineOptions o;
  o.dtype = kernels::DType::f32;
  o.batch = 4;
  o.seed = 5;
  o.optimizer.type = "caffe_sgd";
  o.optimizer.lr.base_lr = 0.05;
  o.optimizer.momentum = 0.9;
  return o;
}

struct Trained {
  std::vector<double> losses;
  double eval_loss = 0;
  std::vector<kernels::Tensor> weights;
};

inline Trained train(Engine& engine, const models::ModelSpec& spec) {
  Trained r;
  for (int step = 0; step < 6; ++step) {
    const testing::Batch b = testing::random_batch(spec, 4, kernels::DType::f32, 40 + static_cast<std::uint64_t>(step));
    r.losses.push_back(engine.train_step(b.x, b.labels, step));
  }
  const testing::Batch test = testing::random_batch(spec, 4, kernels::DType::f32, 99);
  r.eval_loss = engine.evaluate(test.x, test.labels).loss;
  for (Parameter* p : engine.parameters()) r.weights.push_back(p->value.clone());
  return r;
}

// f32: oneDNN's batch norm sums in its own order where the plain loops sum in double.
inline void expect_close(const Trained& a, const Trained& b) {
  for (std::size_t i = 0; i < a.losses.size(); ++i)
    EXPECT_NEAR(a.losses[i], b.losses[i], 1e-4 * std::abs(b.losses[i])) << "step " << i;
  EXPECT_NEAR(a.eval_loss, b.eval_loss, 1e-4 * std::abs(b.eval_loss));
  ASSERT_EQ(a.weights.size(), b.weights.size());
  for (std::size_t k = 0; k < a.weights.size(); ++k)
    for (std::int64_t j = 0; j < a.weights[k].numel(); ++j)
      ASSERT_NEAR(a.weights[k].at(j), b.weights[k].at(j), 1e-4 + 1e-3 * std::abs(b.weights[k].at(j)))
          << "parameter " << k << " [" << j << "]";
  EXPECT_NE(a.losses.front(), a.losses.back());
}

// The switch --blocked-layout on: f32_options() with EngineOptions::blocked_layout.
inline EngineOptions blocked_layout_options() {
  EngineOptions o = f32_options();
  o.blocked_layout = true;
  return o;
}

// Under `strategy` (layerwise, dynamic) on `backend`, each of the three models above trains and
// evaluates with --blocked-layout on as with it off (expect_close).
inline void expect_blocked_layout_trains_as_plain(const std::string& strategy, kernels::Backend& backend) {
  for (const std::string& text : {residual_bn_text(), quick_text(), lenet_like_text()}) {
    const models::ModelSpec spec = testing::parse(text);
    SCOPED_TRACE(strategy + ", " + spec.name);
    auto plain = make_engine(strategy, spec, backend, f32_options());
    auto blocked = make_engine(strategy, spec, backend, blocked_layout_options());
    expect_close(train(*blocked, spec), train(*plain, spec));
  }
}

}  // namespace ablate::graph::testing::blocked
