// Solver: Caffe's SGDSolver::Step for one iteration — ForwardBackward on the train net,
// then ApplyUpdate, whose per-parameter learning rate (policy x lr_mult), regularization
// (weight_decay x decay_mult), momentum and update are the shared graph::Optimizer's
// (caffe_sgd is Caffe's own rule; the other optimizers let the Caffe-style net train with
// Torch's, TF's or Theano's). A loss that is NaN or infinite stops the step before the
// update with std::runtime_error("loss is nan at iteration 123").
#pragma once

#include <cstdint>
#include <vector>

#include "graph/engine.h"
#include "graph/layerwise/net.h"
#include "graph/optim/optimizer.h"

namespace ablate::graph::layerwise {

class Solver {
 public:
  // `seed` drives the dropout masks (with the iteration and the layer name).
  Solver(Net& net, const OptimizerConfig& config, kernels::Backend& backend, std::uint64_t seed);

  // One iteration on the batch already in the net's input and label blobs; returns the loss.
  double step(std::int64_t iteration);

  // The net's parameters as graph::Parameter (value = blob data, grad = blob diff).
  const std::vector<Parameter*>& parameters() { return pointers_; }
  Optimizer& optimizer() { return optimizer_; }

 private:
  Net& net_;
  Optimizer optimizer_;
  std::uint64_t seed_;
  std::vector<Parameter> parameters_;
  std::vector<Parameter*> pointers_;
};

}  // namespace ablate::graph::layerwise
