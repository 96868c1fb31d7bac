// The contract of softmax, log-softmax and the losses (kernels/backend.h): rows [N,K] with
// K >= 1 of one float dtype, outputs of the input's shape, labels i32 [N] with every label of
// a host tensor in [0, K) (a device backend checks the labels it downloads itself).
#include "kernels/backend.h"
#include "kernels/contract/observed_call.h"
#include "kernels/contract/op_check.h"

namespace ablate::kernels {

double Backend::softmax_xent_forward(const Tensor& logits, const Tensor& labels, Tensor& prob) {
  const OpCheck check(*this, Op::softmax_xent_forward);
  check.rows("logits", logits);
  check.like_shape("prob", prob, logits, logits.shape());
  check.labels(labels, logits.dim(0), logits.dim(1));
  return observed_call(*this, Op::softmax_xent_forward, {{&prob}, nullptr, {&logits, &labels}}, [&] { return softmax_xent_forward_impl(logits, labels, prob); });
}

void Backend::softmax_xent_backward(const Tensor& prob, const Tensor& labels, double scale, Tensor& dlogits) {
  const OpCheck check(*this, Op::softmax_xent_backward);
  check.rows("prob", prob);
  check.like_shape("dlogits", dlogits, prob, prob.shape());
  check.labels(labels, prob.dim(0), prob.dim(1));
  observed_call(*this, Op::softmax_xent_backward, {{&dlogits}, nullptr, {&prob, &labels}}, [&] { softmax_xent_backward_impl(prob, labels, scale, dlogits); });
}

void Backend::softmax_forward(const Tensor& x, Tensor& y) {
  const OpCheck check(*this, Op::softmax_forward);
  check.rows("x", x);
  check.like_shape("y", y, x, x.shape());
  observed_call(*this, Op::softmax_forward, {{&y}, nullptr, {&x}}, [&] { softmax_forward_impl(x, y); });
}

void Backend::log_softmax_forward(const Tensor& x, Tensor& y) {
  const OpCheck check(*this, Op::log_softmax_forward);
  check.rows("x", x);
  check.like_shape("y", y, x, x.shape());
  observed_call(*this, Op::log_softmax_forward, {{&y}, nullptr, {&x}}, [&] { log_softmax_forward_impl(x, y); });
}

void Backend::log_softmax_backward(const Tensor& y, const Tensor& dy, Tensor& dx) {
  const OpCheck check(*this, Op::log_softmax_backward);
  check.rows("y", y);
  check.like_shape("dy", dy, y, y.shape());
  check.like_shape("dx", dx, y, y.shape());
  observed_call(*this, Op::log_softmax_backward, {{&dx}, nullptr, {&y, &dy}}, [&] { log_softmax_backward_impl(y, dy, dx); });
}

double Backend::nll_forward(const Tensor& logp, const Tensor& labels) {
  const OpCheck check(*this, Op::nll_forward);
  check.rows("logp", logp);
  check.labels(labels, logp.dim(0), logp.dim(1));
  return observed_call(*this, Op::nll_forward, {{}, nullptr, {&logp, &labels}}, [&] { return nll_forward_impl(logp, labels); });
}

void Backend::nll_backward(const Tensor& labels, double scale, Tensor& dlogp) {
  const OpCheck check(*this, Op::nll_backward);
  check.rows("dlogp", dlogp);
  check.labels(labels, dlogp.dim(0), dlogp.dim(1));
  observed_call(*this, Op::nll_backward, {{&dlogp}, nullptr, {&labels}}, [&] { nll_backward_impl(labels, scale, dlogp); });
}

}  // namespace ablate::kernels
