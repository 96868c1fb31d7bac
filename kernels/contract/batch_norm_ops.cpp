// The contract of batch normalisation (kernels/backend.h): x [N,C] or [N,C,H,W] of a float
// dtype with at least one value per channel, the per-channel tensors [C] of x's dtype (gamma,
// beta, dgamma, dbeta may be empty; so may dx), outputs of x's shape, and epsilon > 0.
#include <cmath>
#include <sstream>

#include "kernels/backend.h"
#include "kernels/contract/observed_call.h"
#include "kernels/contract/op_check.h"

namespace ablate::kernels {
namespace {

// x [N,C] or [N,C,H,W] with N*H*W >= 1 and C >= 1, and epsilon; returns the per-channel shape {C}.
Shape checked_batch(const OpCheck& check, const Tensor& x, double epsilon) {
  check.floating("x", x);
  if (x.ndim() != 2 && x.ndim() != 4)
    check.fail("x is " + x.describe() + ", expected [N, C] or [N, C, H, W]");
  if (x.numel() == 0) check.fail("x is " + x.describe() + ", expected at least one value per channel");
  if (!(epsilon > 0) || !std::isfinite(epsilon)) {
    std::ostringstream got;
    got << epsilon;
    check.fail("epsilon " + got.str() + ", expected a finite value > 0 (Caffe's and Torch's default 1e-5)");
  }
  return {x.dim(1)};
}

// A per-channel tensor that may be empty.
void optional_channels(const OpCheck& check, const char* arg, const Tensor& t, const Tensor& x, const Shape& channels) {
  if (!t.empty()) check.like_shape(arg, t, x, channels);
}

}  // namespace

void Backend::batch_norm_forward_training(const Tensor& x, const Tensor& gamma, const Tensor& beta, double epsilon,
                                          Tensor& y, Tensor& mean, Tensor& var) {
  const OpCheck check(*this, Op::batch_norm_forward_training);
  const Shape channels = checked_batch(check, x, epsilon);
  optional_channels(check, "gamma", gamma, x, channels);
  optional_channels(check, "beta", beta, x, channels);
  check.like_shape("y", y, x, x.shape());
  check.like_shape("mean", mean, x, channels);
  check.like_shape("var", var, x, channels);
  observed_call(*this, Op::batch_norm_forward_training, {{&y, &mean, &var}, nullptr, {&x, &gamma, &beta}},
                [&] { batch_norm_forward_training_impl(x, gamma, beta, epsilon, y, mean, var); });
}

void Backend::batch_norm_forward_inference(const Tensor& x, const Tensor& gamma, const Tensor& beta, const Tensor& mean,
                                           const Tensor& var, double epsilon, Tensor& y) {
  const OpCheck check(*this, Op::batch_norm_forward_inference);
  const Shape channels = checked_batch(check, x, epsilon);
  optional_channels(check, "gamma", gamma, x, channels);
  optional_channels(check, "beta", beta, x, channels);
  check.like_shape("mean", mean, x, channels);
  check.like_shape("var", var, x, channels);
  check.like_shape("y", y, x, x.shape());
  observed_call(*this, Op::batch_norm_forward_inference, {{&y}, nullptr, {&x, &gamma, &beta, &mean}},
                [&] { batch_norm_forward_inference_impl(x, gamma, beta, mean, var, epsilon, y); });
}

void Backend::batch_norm_backward(const Tensor& x, const Tensor& dy, const Tensor& gamma, const Tensor& mean,
                                  const Tensor& var, double epsilon, Tensor& dx, Tensor& dgamma, Tensor& dbeta) {
  const OpCheck check(*this, Op::batch_norm_backward);
  const Shape channels = checked_batch(check, x, epsilon);
  check.like_shape("dy", dy, x, x.shape());
  optional_channels(check, "gamma", gamma, x, channels);
  check.like_shape("mean", mean, x, channels);
  check.like_shape("var", var, x, channels);
  if (!dx.empty()) check.like_shape("dx", dx, x, x.shape());
  optional_channels(check, "dgamma", dgamma, x, channels);
  optional_channels(check, "dbeta", dbeta, x, channels);
  observed_call(*this, Op::batch_norm_backward, {{&dx, &dgamma, &dbeta}, nullptr, {&x, &dy, &gamma, &mean}},
                [&] { batch_norm_backward_impl(x, dy, gamma, mean, var, epsilon, dx, dgamma, dbeta); });
}

}  // namespace ablate::kernels
