// The whole computation of one training step as one graph, as a TensorFlow 1.x script
// builds it before its first Session.run: the forward graph of the model, the gradient graph
// (autodiff.h), a CheckNumerics of the loss, and one apply node per parameter (TF's
// ApplyGradientDescent / ApplyMomentum / ApplyAdam) that updates the variable in place with
// the Backend's update op and the learning-rate rule of graph/optim, at lr * lr_mult and
// weight decay * decay_mult (Caffe's per-parameter multipliers, applied exactly as the
// layer-wise Solver applies them). Optimizer slots are variables named "<param>/history"
// (caffe_sgd), "<param>/velocity" (torch_sgd, gd), "<param>/m" and "<param>/v" (adam).
// The evaluation graph is the forward graph in test phase with the loss and the top-1
// predictions fetched.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "graph/engine.h"
#include "graph/static/model_builder.h"

namespace ablate::graph::static_graph {

// Fetch order of a training graph: 0 the loss, then one gradient per parameter.
// Targets: the check, the running statistics' updates and the apply nodes.
// Data parallel (`allreduce_buckets` not empty: ranges [first, last) of the parameters, as
// GradientAverager::plan_buckets makes them): as Horovod's DistributedOptimizer rewrites a TF
// graph, the gradients of each bucket feed one allreduce_mean node, the apply nodes read its
// outputs, and the fetched gradients are the averaged ones. The nodes are chained by control
// edges, last bucket first (the backward pass's order), so every rank makes its all-reduce
// calls in the same order whatever the executor (the inter-op pool would otherwise start them
// in any order and deadlock), and an all-reduce may overlap the rest of the backward pass.
struct TrainingGraph {
  Graph graph;
  std::vector<GraphParameter> parameters;
};
using ParameterRanges = std::vector<std::pair<std::size_t, std::size_t>>;
TrainingGraph build_training_graph(const models::CheckedModel& model, std::int64_t batch, const EngineOptions& options,
                                   const ParameterRanges& allreduce_buckets = {});

// Fetch order of an evaluation graph: 0 the loss, 1 the predictions i32 [N].
Graph build_evaluation_graph(const models::CheckedModel& model, std::int64_t batch, kernels::DType dtype);

// The slot variable names of `param` for an optimizer type.
std::vector<std::string> slot_names(const std::string& optimizer, const std::string& param);

}  // namespace ablate::graph::static_graph
