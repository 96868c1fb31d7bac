// The contract of the pointwise and per-pixel ops (kernels/backend.h): activations and GELU
// (x, y, dy, dx of one shape and float dtype; backward reads y, GELU's x; the GELU
// activations are routed to the GELU ops), LRN across channels (x, y, dy, dx
// [N,C,H,W]; an odd window, k > 0, alpha >= 0) and dropout's mask (keep in (0, 1]).
#include <sstream>

#include "kernels/backend.h"
#include "kernels/contract/observed_call.h"
#include "kernels/contract/op_check.h"

namespace ablate::kernels {

// GELU runs as its own op (its check, its observer span, its _impl); the backward's `y` is
// then x, which GELU's backward reads.
void Backend::activation_forward(Activation a, const Tensor& x, Tensor& y) {
  if (is_gelu(a)) return gelu_forward(x, y, gelu_approx_of(a));
  const OpCheck check(*this, Op::activation_forward);
  check.floating("x", x);
  check.like_shape("y", y, x, x.shape());
  observed_call(*this, Op::activation_forward, {{&y}, nullptr, {&x}}, [&] { activation_forward_impl(a, x, y); });
}

void Backend::activation_backward(Activation a, const Tensor& y, const Tensor& dy, Tensor& dx) {
  if (is_gelu(a)) return gelu_backward(y, dy, dx, gelu_approx_of(a));
  const OpCheck check(*this, Op::activation_backward);
  check.floating("y", y);
  check.like_shape("dy", dy, y, y.shape());
  check.like_shape("dx", dx, y, y.shape());
  observed_call(*this, Op::activation_backward, {{&dx}, nullptr, {&y, &dy}}, [&] { activation_backward_impl(a, y, dy, dx); });
}

void Backend::gelu_forward(const Tensor& x, Tensor& y, GeluApprox approx) {
  const OpCheck check(*this, Op::gelu_forward);
  check.floating("x", x);
  check.like_shape("y", y, x, x.shape());
  observed_call(*this, Op::gelu_forward, {{&y}, nullptr, {&x}}, [&] { gelu_forward_impl(x, y, approx); });
}

void Backend::gelu_backward(const Tensor& x, const Tensor& dy, Tensor& dx, GeluApprox approx) {
  const OpCheck check(*this, Op::gelu_backward);
  check.floating("x", x);
  check.like_shape("dy", dy, x, x.shape());
  check.like_shape("dx", dx, x, x.shape());
  observed_call(*this, Op::gelu_backward, {{&dx}, nullptr, {&x, &dy}}, [&] { gelu_backward_impl(x, dy, dx, approx); });
}

void Backend::lrn_forward(const Tensor& x, Tensor& y, Tensor& workspace, const LrnParams& p) {
  const OpCheck check(*this, Op::lrn_forward);
  check.floating("x", x);
  check.ndim("x", x, 4);
  check.like_shape("y", y, x, x.shape());
  check.lrn_params(p);
  observed_call(*this, Op::lrn_forward, {{&y}, &workspace, {&x}}, [&] { lrn_forward_impl(x, y, workspace, p); });
}

void Backend::lrn_backward(const Tensor& x, const Tensor& y, const Tensor& dy, const Tensor& workspace, Tensor& dx,
                           const LrnParams& p) {
  const OpCheck check(*this, Op::lrn_backward);
  check.floating("x", x);
  check.ndim("x", x, 4);
  check.like_shape("y", y, x, x.shape());
  check.like_shape("dy", dy, x, x.shape());
  check.like_shape("dx", dx, x, x.shape());
  check.lrn_params(p);
  observed_call(*this, Op::lrn_backward, {{&dx}, nullptr, {&x, &y, &dy}}, [&] { lrn_backward_impl(x, y, dy, workspace, dx, p); });
}

void Backend::dropout_mask(Tensor& mask, double keep_prob, std::uint64_t seed, std::uint64_t first_index) {
  const OpCheck check(*this, Op::dropout_mask);
  check.floating("mask", mask);
  if (!(keep_prob > 0 && keep_prob <= 1)) {
    std::ostringstream got;
    got << keep_prob;
    check.fail("keep probability " + got.str() + ", expected in (0, 1]");
  }
  observed_call(*this, Op::dropout_mask, {{&mask}, nullptr, {}}, [&] { dropout_mask_impl(mask, keep_prob, seed, first_index); });
}

}  // namespace ablate::kernels
