// The fused elementwise chain (Backend::fused_elementwise, ChainStep in op_params.h) as the
// plainest loop: for each element, the steps in order on one running value r, each step
// computed as the reference's own op computes it (in double, rounded to the tensor's type once
// per step), so a fused chain gives the numbers of the whole-tensor ops it replaces. The steps
// are a runtime list, so no multiply of one step can merge with the next step's add into one
// rounding (a fused multiply-add): each step rounds where the unfused op rounds.
#include "kernels/activation_formulas.h"
#include "kernels/reference/reference_backend_impl.h"
#include "kernels/reference/reference_loops.h"

namespace ablate::kernels::reference {

void ReferenceBackend::fused_elementwise_impl(const std::vector<const Tensor*>& inputs,
                                              const std::vector<ChainStep>& steps, Tensor& out) {
  const Tensor& first = *inputs[0];
  if (first.numel() == 0) return;
  // Element i of [N, C, inner] has channel (i / inner) % C (for a bias_add step).
  const std::int64_t channels = first.ndim() >= 2 ? first.dim(1) : 1;
  const std::int64_t inner = first.numel() / ((first.ndim() >= 1 ? first.dim(0) : 1) * channels);
  with_float_type(first.dtype(), [&](auto tag) {
    using T = decltype(tag);
    auto operand = [&](const ChainStep& s) { return inputs[static_cast<std::size_t>(s.operand)]->data<T>(); };
    T* o = out.data<T>();
    for (std::int64_t i = 0; i < first.numel(); ++i) {
      T r = first.data<T>()[i];
      for (const ChainStep& s : steps) {
        switch (s.op) {
          case ChainOp::bias_add: r += operand(s)[(i / inner) % channels]; break;
          case ChainOp::activation: r = static_cast<T>(activate(s.activation, r)); break;
          case ChainOp::activation_grad:
            r = static_cast<T>(double(r) * derivative_from_output(s.activation, operand(s)[i]));
            break;
          case ChainOp::mul: r = static_cast<T>(double(r) * double(operand(s)[i])); break;
          case ChainOp::add: r = static_cast<T>(double(r) + double(operand(s)[i])); break;
          case ChainOp::scale: r = static_cast<T>(s.alpha * double(r)); break;
        }
      }
      o[i] = r;
    }
  });
}

}  // namespace ablate::kernels::reference
