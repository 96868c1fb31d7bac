// The one list of the activations (op_params.h's Activation), as kernels/op_list.h is of the
// ops: the conformance cases walk it, so an activation added to the enum and to
// activation_name() gets its cases once it is added here, and a test fails until it is
// (tests/kernels/op_coverage_test.cpp). A backend's switch over Activation has no default, so
// -Wswitch names a backend that misses one; a value a backend cannot run is an error there.
#pragma once

#include <array>

#include "kernels/op_params.h"

namespace ablate::kernels {

inline constexpr std::array kActivations{Activation::relu, Activation::tanh, Activation::sigmoid, Activation::gelu,
                                         Activation::gelu_tanh};

}  // namespace ablate::kernels
