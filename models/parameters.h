// The learnable parameters of a ModelSpec with their initial values, made in one canonical
// order (layers in file order; weight, then bias) from one seeded generator, so that every
// strategy starts from bit-identical weights for the same seed.
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

// Shapes: convolution weight [K, C, KH, KW] and bias [K]; inner_product weight [O, I] and
// bias [O]; bias layer [C]. Layers without parameters contribute nothing.
// Fans: a weight's own (initializers.h); a bias takes its layer's weight fans (Torch's
// reset() draws the bias with the weight's 1/sqrt(fan_in)); a bias layer's [C] its own.
// A convolution read by a pooling layer has fan_out = K * KH * KW / (pool kernel)^2, which
// only glorot uses (Theano's LeNetConvPoolLayer).
std::vector<InitialParameter> make_initial_parameters(const ModelSpec& spec, kernels::DType dtype,
                                                      std::uint64_t seed);

}  // namespace ablate::models
