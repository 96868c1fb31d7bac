// The fused elementwise chain (Backend::fused_elementwise) on the onednn backend: its tanh and
// sigmoid forward steps run on oneDNN's vectorised eltwise in place over `out`, the steps
// between them on the shared blocked loop (kernels/cpu/fused_elementwise.cpp). The shared loop
// computes tanh with the scalar std::tanh of activation_math.h, about 20 times slower than
// oneDNN's eltwise here: Torch's MNIST model (bias + tanh after each layer) trained on the static
// strategy at half layer-wise's speed (docs/benchmarks.md). A chain runs the same
// kernels as the unfused ops on this backend, so it gives their numbers: bias_add then oneDNN's
// tanh, as layer-wise computes it. ReLU and the gradient steps stay in the one loop.
#include <algorithm>

#include "kernels/onednn/onednn_backend_impl.h"

namespace ablate::kernels::onednn {

namespace {

bool runs_on_eltwise(const ChainStep& s) {
  return s.op == ChainOp::activation && (s.activation == Activation::tanh || s.activation == Activation::sigmoid);
}

}  // namespace

void OnednnBackend::fused_elementwise_impl(const std::vector<const Tensor*>& inputs, const std::vector<ChainStep>& steps,
                                           Tensor& out) {
  bool split = out.dtype() == DType::f32 && std::any_of(steps.begin(), steps.end(), runs_on_eltwise);
  // An operand that is out's buffer would be read after an earlier part of the chain wrote it.
  for (std::size_t k = 1; k < inputs.size(); ++k) split = split && inputs[k]->raw_data() != out.raw_data();
  if (!split) return CpuBackend::fused_elementwise_impl(inputs, steps, out);
  std::vector<const Tensor*> current = inputs;  // current[0]: the chain's running value
  std::vector<ChainStep> pending;
  auto run_pending = [&] {
    if (pending.empty()) return;
    CpuBackend::fused_elementwise_impl(current, pending, out);
    current[0] = &out;
    pending.clear();
  };
  for (const ChainStep& s : steps) {
    if (!runs_on_eltwise(s)) {
      pending.push_back(s);
      continue;
    }
    run_pending();
    activation_forward_impl(s.activation, *current[0], out);
    current[0] = &out;
  }
  run_pending();
}

}  // namespace ablate::kernels::onednn
