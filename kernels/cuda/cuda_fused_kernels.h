// Launcher of the CUDA backend's fused elementwise kernel (Backend::fused_elementwise): one
// templated kernel (cuda_fused_bodies.h) that walks a chain of ChainSteps (op_params.h) per
// element, reading each input once and writing the output once. The chain travels as a
// kernel parameter.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/op_params.h"
#include "kernels/tensor.h"

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

// The chain of `steps` (at most kMaxChainSteps, checked by the caller) over a first input of
// shape `first` (numel > 0), its inputs still to be set.
inline DeviceChain device_chain(const std::vector<ChainStep>& steps, const Shape& first) {
  DeviceChain chain;
  chain.steps = static_cast<int>(steps.size());
  for (std::size_t k = 0; k < steps.size(); ++k) {
    chain.op[k] = steps[k].op;
    chain.activation[k] = steps[k].activation;
    chain.alpha[k] = steps[k].alpha;
    chain.operand[k] = steps[k].operand;
  }
  chain.channels = first.size() >= 2 ? first[1] : 1;
  chain.inner = shape_numel(first) / ((first.size() >= 1 ? first[0] : 1) * chain.channels);
  return chain;
}

template <class T> void launch_fused_elementwise(const DeviceChain& chain, std::int64_t n, T* out);

}  // namespace ablate::kernels::cuda
