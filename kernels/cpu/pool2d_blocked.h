// Max and average pooling of channel-blocked tensors (nChw{B}c, kernels/tensor.h, B = 8 or 16, or
// B = C: channels-last, NHWC):
// the windows, divisors and first-largest rule of the NCHW loops (pool2d.cpp, pool_windows.h),
// with each window cell a vector of B channels, contiguous in memory, so that one block-plane
// [H, W, B] is pooled as [H, W] cells of B lanes. The argmax workspace (max) is i32 of y's
// shape in y's blocked order: per output element, the index h * W + w of the maximum in its
// channel's plane (-1 for a window wholly in the padding). oneDNN's backend runs its blocked
// pooling here (kernels/onednn/onednn_pool2d.cpp).
#pragma once

#include "kernels/op_params.h"
#include "kernels/tensor.h"

namespace ablate::kernels::cpu {

// x and y in one blocked layout; workspace (max) is (re)allocated to y's shape as i32.
void pool2d_blocked_forward(int threads, const Tensor& x, Tensor& y, Tensor& workspace, const Pool2dParams& p);
// dx = the gradient of x, in x's layout: max routes dy to the workspace's cell (gradient
// `first`) or to every cell equal to y (`all`, which reads x and y); avg spreads dy / divisor.
void pool2d_blocked_backward(int threads, PoolGradient gradient, const Tensor& x, const Tensor& y, const Tensor& dy,
                             const Tensor& workspace, Tensor& dx, const Pool2dParams& p);

}  // namespace ablate::kernels::cpu
