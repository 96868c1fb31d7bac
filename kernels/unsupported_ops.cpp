// The defaults of the attention ops and of the fused convolution + max pooling for a backend
// that has no implementation of its own: an error naming the backend and the op. reference
// (kernels/reference/) and the CPU backends (kernels/cpu/) override every one; the CUDA backend
// the attention ops but fused attention (kernels/cuda/cuda_attention.cpp), so a graph with the
// attention_fusion pass stops there with this message instead of computing wrongly. The
// conv_pool_fusion pass asks fuses_conv_max_pool first and leaves the pair apart on CUDA.
#include <stdexcept>
#include <string>

#include "kernels/backend.h"

namespace ablate::kernels {
namespace {

[[noreturn]] void unsupported(const Backend& backend, Op op) {
  throw std::runtime_error(backend.name() + " " + op_name(op) + ": not supported on the " + backend.name() +
                           " backend (reference, eigen, openblas and onednn have it)");
}

}  // namespace

void Backend::softmax_last_forward_impl(const Tensor&, double, Tensor&) { unsupported(*this, Op::softmax_last_forward); }
void Backend::softmax_last_backward_impl(const Tensor&, const Tensor&, double, Tensor&) {
  unsupported(*this, Op::softmax_last_backward);
}
void Backend::layer_norm_forward_impl(const Tensor&, const Tensor&, const Tensor&, double, Tensor&, Tensor&, Tensor&) {
  unsupported(*this, Op::layer_norm_forward);
}
void Backend::layer_norm_backward_impl(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                       Tensor&, Tensor&, Tensor&) {
  unsupported(*this, Op::layer_norm_backward);
}
void Backend::conv2d_max_pool_forward_impl(const Tensor&, const Tensor&, const Tensor&, Tensor&, Tensor&,
                                           const Conv2dParams&, const Pool2dParams&) {
  unsupported(*this, Op::conv2d_max_pool_forward);
}
void Backend::conv2d_max_pool_backward_weights_impl(const Tensor&, const Tensor&, const Tensor&, Tensor&, Tensor&,
                                                    const Conv2dParams&, const Pool2dParams&) {
  unsupported(*this, Op::conv2d_max_pool_backward_weights);
}
void Backend::permute_impl(const Tensor&, const std::vector<int>&, Tensor&) { unsupported(*this, Op::permute); }
void Backend::fused_attention_forward_impl(const Tensor&, const Tensor&, const Tensor&, double, std::int64_t, Tensor&,
                                           Tensor&) {
  unsupported(*this, Op::fused_attention_forward);
}
void Backend::fused_attention_backward_impl(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                            const Tensor&, double, std::int64_t, Tensor&, Tensor&, Tensor&) {
  unsupported(*this, Op::fused_attention_backward);
}

}  // namespace ablate::kernels
