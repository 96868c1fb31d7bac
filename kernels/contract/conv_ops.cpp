// The contract of the dense convolution and the per-channel bias (kernels/backend.h):
// x [N,C,H,W], w [K,C,KH,KW], bias [K] or empty, y [N,K,OH,OW] with
// OH = (H + pad_top + pad_bottom - KH) / stride_h + 1 (likewise OW), one float dtype;
// forward: y = f(conv(x, w) + bias) with f the epilogue p.activation (none, relu, tanh or
// sigmoid; GELU and an activation on the backward ops are refused: OpCheck::conv_output),
// applied by each backend inside its convolution (the CPU loops: kernels/cpu/conv_epilogue.h);
// bias_add / bias_backward: y, dy [N,C,...] with bias, dbias [C].
#include "kernels/backend.h"
#include "kernels/contract/observed_call.h"
#include "kernels/contract/op_check.h"
#include "kernels/contract/op_flops.h"

namespace ablate::kernels {
namespace {

// image (x or dx) [N,C,H,W] and filters (w or dw) [K,C,KH,KW], both 4-D, of the image's dtype;
// returns the output shape [N,K,OH,OW].
Shape checked_conv(const OpCheck& check, const char* image_arg, const Tensor& image, const char* filters_arg,
                   const Tensor& filters, const Conv2dParams& p) {
  check.like(filters_arg, filters, image);
  check.ndim(image_arg, image, 4);
  check.ndim(filters_arg, filters, 4);
  if (filters.dim(1) != image.dim(1))
    check.fail(std::string(filters_arg) + " " + filters.describe() + " has " + std::to_string(filters.dim(1)) +
               " input channels, the input " + image_arg + " " + image.describe() + " has " +
               std::to_string(image.dim(1)));
  return check.conv_output(image.shape(), filters.dim(0), filters.dim(2), filters.dim(3), p);
}

// bias_add / bias_backward: t [N,C,...] of at least 2 dimensions and per-channel c [C].
void checked_channels(const OpCheck& check, const char* t_arg, const Tensor& t, const char* c_arg, const Tensor& c) {
  check.floating(t_arg, t);
  if (t.ndim() < 2) check.fail(std::string(t_arg) + " is " + t.describe() + ", expected at least 2 dimensions [N, C, ...]");
  check.like_shape(c_arg, c, t, {t.dim(1)});
}

}  // namespace

void Backend::conv2d_forward(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y, const Conv2dParams& p) {
  const OpCheck check(*this, Op::conv2d_forward);
  check.floating("x", x);
  check.like("y", y, x);
  check.shape("y", y, checked_conv(check, "x", x, "w", w, p));
  if (!bias.empty()) check.like_shape("bias", bias, x, {w.dim(0)});
  observed_call(*this, Op::conv2d_forward, {{&y}, nullptr, {&x, &w, &bias}}, [&] { return flops::conv2d(w, y); },
                [&] { conv2d_forward_impl(x, w, bias, y, p); });
}

void Backend::conv2d_backward_data(const Tensor& dy, const Tensor& w, Tensor& dx, const Conv2dParams& p) {
  const OpCheck check(*this, Op::conv2d_backward_data);
  check.floating("dy", dy);
  check.like("dx", dx, dy);
  check.shape("dy", dy, checked_conv(check, "dx", dx, "w", w, p));
  observed_call(*this, Op::conv2d_backward_data, {{&dx}, nullptr, {&dy, &w}}, [&] { return flops::conv2d(w, dy); },
                [&] { conv2d_backward_data_impl(dy, w, dx, p); });
}

void Backend::conv2d_backward_weights(const Tensor& x, const Tensor& dy, Tensor& dw, Tensor& dbias,
                                      const Conv2dParams& p) {
  const OpCheck check(*this, Op::conv2d_backward_weights);
  check.floating("x", x);
  check.like("dy", dy, x);
  check.shape("dy", dy, checked_conv(check, "x", x, "dw", dw, p));
  if (!dbias.empty()) check.like_shape("dbias", dbias, x, {dw.dim(0)});
  observed_call(*this, Op::conv2d_backward_weights, {{&dw, &dbias}, nullptr, {&x, &dy}}, [&] { return flops::conv2d(dw, dy); },
                [&] { conv2d_backward_weights_impl(x, dy, dw, dbias, p); });
}

Shape Backend::conv2d_output_shape(const Tensor& x, const Tensor& w, const Conv2dParams& p) {
  return {x.dim(0), w.dim(0),
          conv2d_out_size(static_cast<int>(x.dim(2)), static_cast<int>(w.dim(2)), p.stride_h, p.pad_top, p.pad_bottom),
          conv2d_out_size(static_cast<int>(x.dim(3)), static_cast<int>(w.dim(3)), p.stride_w, p.pad_left, p.pad_right)};
}

// The convolution and the max pooling over its output c [N,K,OH,OW] as one op: the
// convolution's checks, the pooling's on c's shape (windows that tile c: fuses_conv_max_pool),
// and for the backward the workspace its forward filled.
namespace {
// x, the filters (w or dw) and their bias (bias or dbias, or empty), the max pooling over the
// convolution's output c, and whether the backend fuses the pair; `pooled` (y or dy) of the
// pooling's output shape. Returns c's shape.
Shape checked_conv_max_pool(const OpCheck& check, const Tensor& x, const char* filters_arg, const Tensor& filters,
                            const char* bias_arg, const Tensor& bias, const char* pooled_arg, const Tensor& pooled,
                            const Conv2dParams& cp, const Pool2dParams& pp, bool fuses) {
  check.floating("x", x);
  const Shape c = checked_conv(check, "x", x, filters_arg, filters, cp);
  if (pp.kind != PoolKind::max) check.fail("the pooling after the convolution is not max pooling");
  check.pool_params(pp, c[2], c[3]);
  check.like_shape(pooled_arg, pooled, x, {c[0], c[1], pp.out_h, pp.out_w});
  if (!bias.empty()) check.like_shape(bias_arg, bias, x, {filters.dim(0)});
  if (!fuses)
    check.fail("this backend does not fuse a convolution with its max pooling (fuses_conv_max_pool: a device backend, "
               "or the 'all' pool gradient, which compares c with y)");
  return c;
}
// The convolution's FLOPs (flops::conv2d over c's shape; the pooling's compares are not counted).
double conv_flops(const Shape& c, const Tensor& filters) {
  return 2 * static_cast<double>(shape_numel(c)) * static_cast<double>(filters.numel() / filters.dim(0));
}
}  // namespace

void Backend::conv2d_max_pool_forward(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y,
                                      Tensor& workspace, const Conv2dParams& cp, const Pool2dParams& pp) {
  const OpCheck check(*this, Op::conv2d_max_pool_forward);
  const Shape c = checked_conv_max_pool(check, x, "w", w, "bias", bias, "y", y, cp, pp, fuses_conv_max_pool(pp));
  observed_call(*this, Op::conv2d_max_pool_forward, {{&y}, &workspace, {&x, &w, &bias}},
                [&] { return conv_flops(c, w); },
                [&] { conv2d_max_pool_forward_impl(x, w, bias, y, workspace, cp, pp); });
}

void Backend::conv2d_max_pool_backward_weights(const Tensor& x, const Tensor& dy, const Tensor& workspace, Tensor& dw,
                                               Tensor& dbias, const Conv2dParams& cp, const Pool2dParams& pp) {
  const OpCheck check(*this, Op::conv2d_max_pool_backward_weights);
  const Shape c = checked_conv_max_pool(check, x, "dw", dw, "dbias", dbias, "dy", dy, cp, pp, fuses_conv_max_pool(pp));
  if (workspace.empty()) check.fail("workspace is empty, expected the argmax that conv2d_max_pool_forward filled");
  check.argmax_workspace(workspace, dy.shape());
  observed_call(*this, Op::conv2d_max_pool_backward_weights, {{&dw, &dbias}, nullptr, {&x, &dy}},
                [&] { return conv_flops(c, dw); },
                [&] { conv2d_max_pool_backward_weights_impl(x, dy, workspace, dw, dbias, cp, pp); });
}

void Backend::bias_add(Tensor& y, const Tensor& bias) {
  checked_channels(OpCheck(*this, Op::bias_add), "y", y, "bias", bias);
  observed_call(*this, Op::bias_add, {{&y}, nullptr, {&bias}}, [&] { bias_add_impl(y, bias); });
}

void Backend::bias_backward(const Tensor& dy, Tensor& dbias) {
  checked_channels(OpCheck(*this, Op::bias_backward), "dy", dy, "dbias", dbias);
  observed_call(*this, Op::bias_backward, {{&dbias}, nullptr, {&dy}}, [&] { bias_backward_impl(dy, dbias); });
}

}  // namespace ablate::kernels
