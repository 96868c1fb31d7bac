// Helpers of the static-graph tests: the TensorFlow models written inline (the zoo gets
// them as tf-mnist and tf-cifar10), option presets, and small hand-built graphs.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "graph/engine.h"
#include "graph/static/graph_ir.h"
#include "graph/static/session.h"
#include "graph/static/variable_store.h"

namespace ablate::graph::testing {

// TensorFlow's "deep MNIST" model (frameworks.md): conv 5x5/32 SAME -> relu -> maxpool 2/2
// SAME -> conv 5x5/64 SAME -> relu -> maxpool 2/2 SAME -> fc 1024 -> relu -> dropout keep 0.5
// -> fc 10 -> softmax cross-entropy; truncated_normal 0.1 weights, constant 0.1 biases.
inline std::string tf_mnist_text() {
  const std::string w = " weight_init=truncated_normal:0.1 bias_init=constant:0.1\n";
  return "model tf-mnist\ninput 1 28 28\nclasses 10\n"
         "layer conv1 convolution outputs=32 kernel=5 padding=same" + w +
         "layer relu1 relu\n"
         "layer pool1 pooling mode=max kernel=2 stride=2 padding=tf_same\n"
         "layer conv2 convolution outputs=64 kernel=5 padding=same" + w +
         "layer relu2 relu\n"
         "layer pool2 pooling mode=max kernel=2 stride=2 padding=tf_same\n"
         "layer fc1 inner_product outputs=1024" + w +
         "layer relu3 relu\n"
         "layer drop dropout keep=0.5\n"
         "layer fc2 inner_product outputs=10" + w +
         "layer loss softmax_loss\n";
}

// Caffe's LeNet recipe: SGD momentum 0.9, lr 0.01 with the inv policy, weight decay 5e-4.
inline EngineOptions caffe_sgd_options(std::int64_t batch, kernels::DType dtype, std::uint64_t seed = 3) {
  EngineOptions o;
  o.batch = batch;
  o.dtype = dtype;
  o.seed = seed;
  o.optimizer.type = "caffe_sgd";
  o.optimizer.lr.policy = "inv";
  o.optimizer.lr.base_lr = 0.01;
  o.optimizer.lr.gamma = 1e-4;
  o.optimizer.lr.power = 0.75;
  o.optimizer.momentum = 0.9;
  o.optimizer.weight_decay = 5e-4;
  return o;
}

// TensorFlow's MNIST recipe: Adam lr 1e-4 (beta1 0.9, beta2 0.999, epsilon 1e-8).
inline EngineOptions adam_options(std::int64_t batch, kernels::DType dtype, std::uint64_t seed = 3) {
  EngineOptions o;
  o.batch = batch;
  o.dtype = dtype;
  o.seed = seed;
  o.optimizer.type = "adam";
  o.optimizer.lr.policy = "fixed";
  o.optimizer.lr.base_lr = 1e-4;
  return o;
}

// A host tensor of `shape` with values from a fixed pattern (seeded, in [-1, 1)).
inline kernels::Tensor pattern_tensor(const kernels::Shape& shape, kernels::DType dtype, std::uint64_t seed) {
  kernels::Tensor t(shape, dtype);
  std::uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 1;
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    t.set(i, static_cast<double>(s >> 11) * 0x1.0p-53 * 2.0 - 1.0);
  }
  return t;
}

// Small hand-built graphs: sources with seeded values.
struct GraphKit {
  static_graph::Graph graph;
  static_graph::VariableStore store;
  std::vector<std::pair<std::string, kernels::Tensor>> feeds;
  kernels::Backend& backend;

  GraphKit(kernels::Backend& b, kernels::DType dtype = kernels::DType::f64) : graph(dtype), backend(b) {}

  static_graph::Value placeholder(const std::string& name, const kernels::Shape& shape, std::uint64_t seed) {
    static_graph::Attrs a;
    a.shape = shape;
    a.dtype = graph.dtype();
    a.key = name;
    feeds.emplace_back(name, pattern_tensor(shape, graph.dtype(), seed));
    return graph.out(graph.add(static_graph::OpKind::placeholder, name, {}, a));
  }
  static_graph::Value labels(const std::string& name, std::int64_t n, int classes) {
    static_graph::Attrs a;
    a.shape = {n};
    a.dtype = kernels::DType::i32;
    a.key = name;
    kernels::Tensor t({n}, kernels::DType::i32);
    for (std::int64_t i = 0; i < n; ++i) t.set(i, static_cast<double>((i * 7 + 3) % classes));
    feeds.emplace_back(name, t);
    return graph.out(graph.add(static_graph::OpKind::placeholder, name, {}, a));
  }
  static_graph::Value variable(const std::string& name, const kernels::Shape& shape, std::uint64_t seed) {
    static_graph::Attrs a;
    a.shape = shape;
    a.dtype = graph.dtype();
    a.key = name;
    store.assign(name, pattern_tensor(shape, graph.dtype(), seed), backend);
    return graph.out(graph.add(static_graph::OpKind::variable, name, {}, a));
  }
  static_graph::Value op(static_graph::OpKind kind, const std::string& name, std::vector<static_graph::Value> inputs,
                         static_graph::Attrs a = {}, int output = 0) {
    return graph.out(graph.add(kind, name, std::move(inputs), std::move(a)), output);
  }
  // A session of a copy of the graph, fed.
  std::unique_ptr<static_graph::Session> session(std::vector<std::string> disabled = {},
                                                 ExecutorKind executor = ExecutorKind::sequential, int threads = 1) {
    auto s = std::make_unique<static_graph::Session>(graph, backend, store,
                                                     static_graph::SessionOptions{std::move(disabled), executor, threads});
    for (const auto& [name, value] : feeds) s->feed(name, value);
    return s;
  }
};

// Host copies of every fetch of a session after one run.
inline std::vector<kernels::Tensor> run_and_fetch(static_graph::Session& s, std::int64_t iteration = 0) {
  s.run({iteration, 0, 1});
  std::vector<kernels::Tensor> out;
  for (std::size_t i = 0; i < s.graph().fetches.size(); ++i) out.push_back(s.fetch(i).clone());
  return out;
}

inline void expect_identical(const std::vector<kernels::Tensor>& a, const std::vector<kernels::Tensor>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].shape(), b[i].shape()) << "fetch " << i;
    for (std::int64_t j = 0; j < a[i].numel(); ++j) ASSERT_EQ(a[i].at(j), b[i].at(j)) << "fetch " << i << " [" << j << "]";
  }
}

}  // namespace ablate::graph::testing
