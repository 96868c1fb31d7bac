// Max and average pooling over NCHW planes with the geometry of Pool2dParams (built by
// make_pool2d_params for Caffe's ceil rule, TF's SAME or Torch/Theano's valid rule).
// Window of output (oh, ow): rows [oh*stride_h - pad_top, ... + kernel_h), likewise columns.
//  - max: the largest real (unpadded) cell; the first in raster order wins a tie, as in
//    Caffe's MaxPoolForward. The workspace is i32 [N,C,OH,OW] holding the argmax as a flat
//    index h*W + w within the input plane; backward routes dy there, or, with pool_gradient()
//    all (Theano's MaxPoolGrad), to every real cell equal to the window's maximum.
//  - avg: the sum of the real cells divided by the window clipped to
//    [-pad_top, H + pad_bottom_limit) when avg_count_padding (Caffe, Torch: padded cells
//    count), or by the number of real cells (TF SAME). Backward spreads dy / divisor back.
//  - a convolution and its max pooling fused (Backend::conv2d_max_pool_forward): the two ops one
//    after the other over the whole batch, the convolution's output whole; the backward routes
//    dy to dc through the workspace and takes the weight gradient over dc.
#include <algorithm>
#include <map>
#include <string>

#include "kernels/contract/op_check.h"
#include "kernels/reference/reference_backend_impl.h"
#include "kernels/reference/reference_loops.h"

namespace ablate::kernels::reference {
namespace {

// The real cells [h0, h1) x [w0, w1) of one window and its average divisor.
struct PoolWindow {
  std::int64_t h0, h1, w0, w1;
  double divisor;
};

PoolWindow pool_window(const Pool2dParams& p, std::int64_t H, std::int64_t W, std::int64_t oh, std::int64_t ow) {
  std::int64_t hs = oh * p.stride_h - p.pad_top, ws = ow * p.stride_w - p.pad_left;
  std::int64_t he = hs + p.kernel_h, we = ws + p.kernel_w;
  PoolWindow win{std::max<std::int64_t>(hs, 0), std::min(he, H), std::max<std::int64_t>(ws, 0), std::min(we, W), 0};
  if (p.avg_count_padding)
    win.divisor = double(std::min(he, H + p.pad_bottom_limit) - hs) * double(std::min(we, W + p.pad_right_limit) - ws);
  else
    win.divisor = double(win.h1 - win.h0) * double(win.w1 - win.w0);
  return win;
}

// Calls f(plane, out_index, window) for every output cell; `plane` is n*C + c and out_index
// the flat index of the output cell in y.
template <class F> void for_each_pool_window(const Pool2dParams& p, std::int64_t planes, std::int64_t H, std::int64_t W,
                                            F&& f) {
  for (std::int64_t plane = 0; plane < planes; ++plane)
    for (std::int64_t oh = 0; oh < p.out_h; ++oh)
      for (std::int64_t ow = 0; ow < p.out_w; ++ow)
        f(plane, (plane * p.out_h + oh) * p.out_w + ow, pool_window(p, H, W, oh, ow));
}

template <class T> void max_pool_forward(const Pool2dParams& p, std::int64_t planes, std::int64_t H, std::int64_t W,
                                         const T* x, T* y, std::int32_t* argmax) {
  for_each_pool_window(p, planes, H, W, [&](std::int64_t plane, std::int64_t out, const PoolWindow& win) {
    const T* in = x + plane * H * W;
    std::int64_t best = win.h0 * W + win.w0;
    for (std::int64_t h = win.h0; h < win.h1; ++h)
      for (std::int64_t w = win.w0; w < win.w1; ++w)
        if (in[h * W + w] > in[best]) best = h * W + w;
    y[out] = in[best];
    argmax[out] = static_cast<std::int32_t>(best);
  });
}

template <class T> void max_pool_backward(const Pool2dParams& p, std::int64_t planes, std::int64_t H, std::int64_t W,
                                          const T* dy, const std::int32_t* argmax, T* dx) {
  std::fill(dx, dx + planes * H * W, T(0));
  for_each_pool_window(p, planes, H, W, [&](std::int64_t plane, std::int64_t out, const PoolWindow&) {
    dx[plane * H * W + argmax[out]] += dy[out];
  });
}

// PoolGradient::all, Theano's MaxPoolGrad: every real cell of a window equal to its maximum
// y gets the window's whole dy.
template <class T> void max_pool_backward_all(const Pool2dParams& p, std::int64_t planes, std::int64_t H, std::int64_t W,
                                              const T* x, const T* y, const T* dy, T* dx) {
  std::fill(dx, dx + planes * H * W, T(0));
  for_each_pool_window(p, planes, H, W, [&](std::int64_t plane, std::int64_t out, const PoolWindow& win) {
    for (std::int64_t h = win.h0; h < win.h1; ++h)
      for (std::int64_t w = win.w0; w < win.w1; ++w)
        if (x[plane * H * W + h * W + w] == y[out]) dx[plane * H * W + h * W + w] += dy[out];
  });
}

template <class T> void avg_pool_forward(const Pool2dParams& p, std::int64_t planes, std::int64_t H, std::int64_t W,
                                         const T* x, T* y) {
  for_each_pool_window(p, planes, H, W, [&](std::int64_t plane, std::int64_t out, const PoolWindow& win) {
    const T* in = x + plane * H * W;
    double sum = 0;
    for (std::int64_t h = win.h0; h < win.h1; ++h)
      for (std::int64_t w = win.w0; w < win.w1; ++w) sum += in[h * W + w];
    y[out] = static_cast<T>(sum / win.divisor);
  });
}

template <class T> void avg_pool_backward(const Pool2dParams& p, std::int64_t planes, std::int64_t H, std::int64_t W,
                                          const T* dy, T* dx) {
  std::fill(dx, dx + planes * H * W, T(0));
  for_each_pool_window(p, planes, H, W, [&](std::int64_t plane, std::int64_t out, const PoolWindow& win) {
    T share = static_cast<T>(dy[out] / win.divisor);
    for (std::int64_t h = win.h0; h < win.h1; ++h)
      for (std::int64_t w = win.w0; w < win.w1; ++w) dx[plane * H * W + h * W + w] += share;
  });
}

}  // namespace

void ReferenceBackend::pool2d_forward_impl(const Tensor& x, Tensor& y, Tensor& workspace, const Pool2dParams& p) {
  std::int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3);
  with_float_type(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (p.kind == PoolKind::max) {
      if (workspace.shape() != y.shape() || workspace.dtype() != DType::i32) workspace = Tensor(y.shape(), DType::i32);
      max_pool_forward<T>(p, N * C, H, W, x.data<T>(), y.data<T>(), workspace.data<std::int32_t>());
    } else {
      avg_pool_forward<T>(p, N * C, H, W, x.data<T>(), y.data<T>());
    }
  });
}

void ReferenceBackend::pool2d_backward_impl(const Tensor& x, const Tensor& y, const Tensor& dy, const Tensor& workspace,
                                            Tensor& dx, const Pool2dParams& p) {
  std::int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3);
  with_float_type(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (p.kind == PoolKind::max && pool_gradient() == PoolGradient::all) {
      max_pool_backward_all<T>(p, N * C, H, W, x.data<T>(), y.data<T>(), dy.data<T>(), dx.data<T>());
    } else if (p.kind == PoolKind::max) {
      const OpCheck check(*this, Op::pool2d_backward);
      check.argmax_workspace(workspace, dy.shape());
      const std::int32_t* argmax = workspace.data<std::int32_t>();
      for (std::int64_t i = 0; i < workspace.numel(); ++i)
        if (argmax[i] < 0 || argmax[i] >= H * W)
          check.fail("workspace index " + std::to_string(argmax[i]) + " at " + std::to_string(i) +
                     " is outside the input plane of " + std::to_string(H * W));
      max_pool_backward<T>(p, N * C, H, W, dy.data<T>(), argmax, dx.data<T>());
    } else {
      avg_pool_backward<T>(p, N * C, H, W, dy.data<T>(), dx.data<T>());
    }
  });
}

namespace {
// A tensor of `shape` kept per thread and shape for the calls after (a compiled step allocates
// nothing, training and testing batches alike); `which` tells apart the ones a call holds at once.
Tensor& kept(int which, const Shape& shape, DType dtype) {
  thread_local std::map<std::string, Tensor> tensors;
  Tensor& t = tensors[std::to_string(which) + " " + shape_string(shape) + " " + dtype_name(dtype)];
  if (t.empty()) t = Tensor(shape, dtype);
  return t;
}
}  // namespace

void ReferenceBackend::conv2d_max_pool_forward_impl(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y,
                                                    Tensor& workspace, const Conv2dParams& cp, const Pool2dParams& pp) {
  Tensor& c = kept(0, conv2d_output_shape(x, w, cp), x.dtype());
  conv2d_forward_impl(x, w, bias, c, cp);
  pool2d_forward_impl(c, y, workspace, pp);
}

void ReferenceBackend::conv2d_max_pool_backward_weights_impl(const Tensor& x, const Tensor& dy, const Tensor& workspace,
                                                             Tensor& dw, Tensor& dbias, const Conv2dParams& cp,
                                                             const Pool2dParams& pp) {
  Tensor& dc = kept(1, conv2d_output_shape(x, dw, cp), x.dtype());  // also c's shape: all the first gradient reads of c
  pool2d_backward_impl(dc, Tensor(), dy, workspace, dc, pp);
  conv2d_backward_weights_impl(x, dc, dw, dbias, cp);
}

}  // namespace ablate::kernels::reference
