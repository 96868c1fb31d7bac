// Local response normalisation across channels of channel-blocked tensors (nChw{B}c,
// kernels/tensor.h: B = 8 or 16, or B = C, channels-last): the formula and windows of the
// NCHW loops (lrn.cpp, Caffe's LRNLayer):
//   scale[c] = k + alpha / size * sum_{c' in W(c)} x[c']^2,  y[c] = x[c] * scale[c]^-beta,
//   dx[c] = dy[c] scale[c]^-beta - 2 alpha beta / size * x[c] * sum_{c': c in W(c')} dy[c'] y[c'] / scale[c'],
// computed a pixel at a time: its C channels gathered from their blocks into one contiguous,
// zero-padded row, so that each window sum is `size` vector adds over the row. beta = 0.75
// (Caffe's and TensorFlow's CIFAR-10 models) takes scale^-0.75 = 1 / (sqrt(scale) *
// sqrt(sqrt(scale))), a vector loop where std::pow is a call per element. The workspace holds
// scale, x's shape and layout, from forward to backward. oneDNN's backend runs its blocked
// LRN here (kernels/onednn/onednn_lrn.cpp).
#pragma once

#include "kernels/op_params.h"
#include "kernels/tensor.h"

namespace ablate::kernels::cpu {

// x and y in one blocked layout; workspace is (re)allocated to x's shape, dtype and layout.
void lrn_blocked_forward(int threads, const Tensor& x, Tensor& y, Tensor& workspace, const LrnParams& p);
// dx in x's layout; workspace: the scale that lrn_blocked_forward filled.
void lrn_blocked_backward(int threads, const Tensor& x, const Tensor& y, const Tensor& dy, const Tensor& workspace,
                          Tensor& dx, const LrnParams& p);

}  // namespace ablate::kernels::cpu
