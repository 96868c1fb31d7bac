// The learnable parameters of a ModelSpec with their initial values, made in one canonical
// order (layers in file order; weight, then bias) from one seeded generator, so that every
// strategy starts from bit-identical weights for the same seed; and its state tensors
// (BatchNorm's running statistics) with theirs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/tensor.h"
#include "models/model_spec.h"

namespace ablate::models {

struct InitialParameter {
  std::string name;    // "<layer>.weight" or "<layer>.bias"
  std::string layer;   // owning layer's name
  kernels::Tensor value;  // host tensor of the requested dtype, initialized
  double lr_mult = 1.0, decay_mult = 1.0;  // from weight_lr_mult / bias_lr_mult etc.
};

// Shapes and fans are each layer type's (models/layer_type.h, models/layers/<type>.cpp):
// convolution weight [K, C, KH, KW] and bias [K]; inner_product weight [O, I] and bias [O];
// bias layer [C]. Layers without parameters contribute nothing.
std::vector<InitialParameter> make_initial_parameters(const ModelSpec& spec, kernels::DType dtype,
                                                      std::uint64_t seed);

// A state tensor of a model (LayerShapes::state: BatchNorm's running statistics) with its
// initial value: not a parameter, never trained.
struct InitialState {
  std::string name;       // "<layer>.<suffix>": "bn1.running_mean"
  std::string layer;
  kernels::Tensor value;  // host tensor of the requested dtype, every element the type's initial value
};

// Every layer's state in file order (each layer's in its type's order); empty for a model
// without any.
std::vector<InitialState> make_initial_state(const ModelSpec& spec, kernels::DType dtype);

}  // namespace ablate::models
