// Module: one layer of a ModelSpec as an object that runs ops of the tape, as Torch7's nn
// modules and torch.nn.Module: it holds its parameters (leaf Variables: weight, then bias)
// and maps its input Variables to an output Variable in forward(); backward is the tape's.
// Most modules read one input; the modules of several (add, concat) take them as Torch's
// table modules take a table (nn.CAddTable, nn.JoinTable), in the order the layer names them.
// ForwardContext carries what a forward needs beyond the input: train or evaluate (dropout),
// the iteration and seed of the dropout masks, the labels for the loss modules, and in
// Torch's one-sample-at-a-time mode the sample's place in its batch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/dynamic/variable.h"
#include "models/model_spec.h"

namespace ablate::graph::dynamic {

struct ForwardContext {
  bool train = true;             // model:training() / model:evaluate()
  std::int64_t iteration = 0;    // dropout masks: graph::dropout_seed(seed, layer, iteration)
  std::uint64_t seed = 1;
  std::int64_t first_sample = 0;  // the batch's place in a global batch (dropout masks: EngineOptions)
  kernels::Tensor labels;        // i32 [N] on the backend's device, for the loss module
  std::int64_t sample = -1;      // per-sample mode: the sample's index in its batch; -1: a whole batch
  std::int64_t batch = 0;        // per-sample mode: the batch size
};

class Module {
 public:
  Module(const models::LayerSpec& spec, std::vector<Variable> parameters);
  virtual ~Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  const std::string& name() const { return spec_.name; }
  const models::LayerSpec& spec() const { return spec_; }
  virtual const char* type() const = 0;  // the Torch class it mirrors: "SpatialConvolutionMM", ...
  // Every input, in the order of the layer's input= (models::CheckedModel::inputs). By default
  // the one-input forward of the only input (a count other than one is an error naming the
  // layer); the modules of several inputs override this one.
  virtual Variable forward(const std::vector<Variable>& xs, const ForwardContext& context);
  // One input. Loss modules return the batch-mean loss (a host scalar) of x against
  // context.labels. By default an error: a module of several inputs need not define it.
  virtual Variable forward(const Variable& x, const ForwardContext& context);
  // Weight, then bias: the canonical order of models::make_initial_parameters.
  const std::vector<Variable>& parameters() const { return parameters_; }
  // "lenet.model:5: layer 'conv1' (convolution)", the prefix of every error about the layer.
  std::string where() const;

 protected:
  [[noreturn]] void fail(const std::string& what) const;
  // Throws unless the module was given `count` parameters (weight and bias as the spec says).
  void expect_parameters(std::size_t count) const;
  const Variable& parameter(std::size_t i) const { return parameters_[i]; }

  models::LayerSpec spec_;
  std::vector<Variable> parameters_;
};

}  // namespace ablate::graph::dynamic
