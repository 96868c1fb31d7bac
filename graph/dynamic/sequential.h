// Sequential: a checked model as a container of modules run in file order, as Torch7's
// nn.Sequential followed by its criterion. Each module reads the outputs of the layers its
// spec names (input=a,b; by default the previous layer, and the model input for the first),
// all of them, in that order (Module::forward of a list). A branching model needs no container
// of its own: Torch7 wrote a residual block as nn.ConcatTable (the input handed to two
// branches) followed by nn.CAddTable, whose backward sums the branches' gradInputs; here an
// output read by two layers is one Variable used twice, and the tape sums its gradients
// where they meet (InputGrads, node.h: the first gradient written in place, every later one
// added with Backend::add, as PyTorch's InputBuffer), so ConcatTable's sum is the tape's. The
// last layer is the loss. The parameters are leaf Variables on the backend's device that
// start from models::make_initial_parameters (the values every strategy starts from), each with
// a gradient tensor of its own that backward writes and the optimizer reads; the state tensors
// (BatchNorm's running statistics) start from models::make_initial_state and go to their
// modules.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "graph/dynamic/module.h"
#include "graph/engine.h"
#include "models/checked_model.h"

namespace ablate::graph::dynamic {

struct ModelParameter {
  std::string name;  // "<layer>.weight", "<layer>.bias"
  Variable variable;
  double lr_mult = 1.0, decay_mult = 1.0;
};

class Sequential {
 public:
  Sequential(const models::CheckedModel& model, Context& context, kernels::DType dtype, std::uint64_t seed);

  struct Output {
    Variable loss;    // host scalar, the batch mean
    Variable scores;  // the loss layer's input [N, classes]
  };
  Output forward(const Variable& x, const ForwardContext& context);

  const models::CheckedModel& model() const { return model_; }
  const std::vector<std::unique_ptr<Module>>& modules() const { return modules_; }
  // Canonical order: layers in file order, weight then bias.
  std::vector<ModelParameter>& parameters() { return parameters_; }
  // The modules' state tensors (BatchNorm's running statistics) in models::make_initial_state's
  // order, sharing the modules' storage.
  const std::vector<StateTensor>& state() const { return state_; }

 private:
  void make_parameters(Context& context, kernels::DType dtype, std::uint64_t seed);
  // Under the blocked layout (context.h), layer i's inputs in the layouts it reads.
  void to_layer_layout(std::size_t i, std::vector<Variable>& xs) const;

  models::CheckedModel model_;
  std::vector<std::unique_ptr<Module>> modules_;
  std::vector<ModelParameter> parameters_;
  std::vector<StateTensor> state_;
};

}  // namespace ablate::graph::dynamic
