// The fused elementwise chain on the CUDA backend: the chain is packed into a DeviceChain and
// run by one templated kernel (cuda_fused_bodies.h), one launch for the whole chain.
#include <string>

#include "kernels/contract/op_check.h"
#include "kernels/cuda/cuda_backend_impl.h"
#include "kernels/cuda/cuda_fused_kernels.h"

namespace ablate::kernels::cuda {

void CudaBackend::fused_elementwise_impl(const std::vector<const Tensor*>& inputs, const std::vector<ChainStep>& steps,
                                         Tensor& out) {
  const OpCheck check(*this, Op::fused_elementwise);
  if (steps.size() > static_cast<std::size_t>(kMaxChainSteps) || inputs.size() > static_cast<std::size_t>(kMaxChainInputs))
    check.fail("a chain of " + std::to_string(steps.size()) + " steps over " + std::to_string(inputs.size()) +
               " inputs, expected at most " + std::to_string(kMaxChainSteps) + " steps and " +
               std::to_string(kMaxChainInputs) + " inputs (one kernel parameter)");
  const Tensor& first = *inputs[0];
  if (first.numel() == 0) return;
  DeviceChain chain = device_chain(steps, first.shape());
  std::vector<DeviceArg> args;
  args.reserve(inputs.size());
  for (const Tensor* t : inputs) args.emplace_back(*t, false);
  for (std::size_t k = 0; k < args.size(); ++k) chain.inputs[k] = args[k].ptr();
  DeviceArg d_out(out, true);
  with_float(first.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_fused_elementwise<T>(chain, first.numel(), d_out.as<T>());
  });
  d_out.finish();
}

}  // namespace ablate::kernels::cuda
