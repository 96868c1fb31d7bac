// Shape checks and sizes of a convolution (see conv_geometry.h).
#include "kernels/cpu/conv_geometry.h"

#include "kernels/cpu/op_checks.h"

namespace ablate::kernels::cpu {

ConvGeometry conv_geometry(const Tensor& image, const Tensor& filters, const Tensor& out, const Conv2dParams& p,
                           const char* op, const char* image_arg, const char* filters_arg, const char* out_arg) {
  check_float(image, op, image_arg);
  check_ndim(image, 4, op, image_arg);
  check_same_dtype(filters, image, op, filters_arg);
  check_ndim(filters, 4, op, filters_arg);
  check_same_dtype(out, image, op, out_arg);
  if (p.stride_h < 1) fail_value(op, "stride_h", p.stride_h, "at least 1");
  if (p.stride_w < 1) fail_value(op, "stride_w", p.stride_w, "at least 1");
  if (p.pad_top < 0) fail_value(op, "pad_top", p.pad_top, "at least 0");
  if (p.pad_left < 0) fail_value(op, "pad_left", p.pad_left, "at least 0");
  if (p.pad_bottom < 0) fail_value(op, "pad_bottom", p.pad_bottom, "at least 0");
  if (p.pad_right < 0) fail_value(op, "pad_right", p.pad_right, "at least 0");
  ConvGeometry g;
  g.p = p;
  g.n = image.dim(0), g.c = image.dim(1), g.h = image.dim(2), g.w = image.dim(3);
  g.k = filters.dim(0), g.kh = filters.dim(2), g.kw = filters.dim(3);
  check_shape(filters, {g.k, g.c, g.kh, g.kw}, op, filters_arg);
  std::int64_t span_h = g.h + p.pad_top + p.pad_bottom, span_w = g.w + p.pad_left + p.pad_right;
  if (g.kh < 1 || g.kh > span_h) fail_value(op, "kernel height (filters dim 2)", static_cast<double>(g.kh),
                                            "1 .. input height + pad_top + pad_bottom");
  if (g.kw < 1 || g.kw > span_w) fail_value(op, "kernel width (filters dim 3)", static_cast<double>(g.kw),
                                            "1 .. input width + pad_left + pad_right");
  g.oh = (span_h - g.kh) / p.stride_h + 1;
  g.ow = (span_w - g.kw) / p.stride_w + 1;
  check_shape(out, {g.n, g.k, g.oh, g.ow}, op, out_arg);
  return g;
}

}  // namespace ablate::kernels::cpu
