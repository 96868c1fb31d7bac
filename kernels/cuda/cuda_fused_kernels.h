// Launcher of the CUDA backend's fused elementwise kernel (Backend::fused_elementwise): one
// templated kernel that walks a chain of ChainSteps (op_params.h) per element, reading each
// input once and writing the output once. The chain travels as a kernel parameter.
#pragma once

#include <cstdint>

#include "kernels/op_params.h"

namespace ablate::kernels::cuda {

constexpr int kMaxChainSteps = 32;
constexpr int kMaxChainInputs = 32;

struct DeviceChain {
  int steps = 0;
  ChainOp op[kMaxChainSteps];
  Activation activation[kMaxChainSteps];
  double alpha[kMaxChainSteps];
  int operand[kMaxChainSteps];
  const void* inputs[kMaxChainInputs];  // device pointers; inputs[0] is the chain's first value
  std::int64_t channels = 1, inner = 1;  // element i has channel (i / inner) % channels
};

template <class T> void launch_fused_elementwise(const DeviceChain& chain, std::int64_t n, T* out);

}  // namespace ablate::kernels::cuda
