// The modules of several inputs, as Torch7's table modules take a table of tensors (the
// layer's inputs in the order its input= names them), each registered for its layer type
// (module_factory.h):
//   add     nn.CAddTable: y = x0 + x1 + ...; backward hands dy to every input (the tape's add)
//   concat  nn.JoinTable(2) (Caffe's Concat, axis 1): the inputs [N, Ck, ...] side by side;
//           backward hands each input its channel slice of dy (the tape's concat)
// A residual block's fan-out needs no module: the tape sums the gradients of a Variable read
// twice (sequential.h).
#pragma once

#include "graph/dynamic/module.h"

namespace ablate::graph::dynamic {

class AddModule final : public Module {
 public:
  explicit AddModule(const models::LayerSpec& spec) : Module(spec, {}) {}
  const char* type() const override { return "CAddTable"; }
  using Module::forward;
  Variable forward(const std::vector<Variable>& xs, const ForwardContext& context) override;
};

class ConcatModule final : public Module {
 public:
  explicit ConcatModule(const models::LayerSpec& spec) : Module(spec, {}) {}
  const char* type() const override { return "JoinTable"; }
  using Module::forward;
  Variable forward(const std::vector<Variable>& xs, const ForwardContext& context) override;
};

}  // namespace ablate::graph::dynamic
