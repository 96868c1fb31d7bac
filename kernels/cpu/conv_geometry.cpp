// Shape checks and sizes of a convolution (see conv_geometry.h).
#include "kernels/cpu/conv_geometry.h"

#include <string>

#include "kernels/cpu/op_checks.h"

namespace ablate::kernels::cpu {

ConvGeometry plane_geometry(const Tensor& image, std::int64_t k, std::int64_t kh, std::int64_t kw,
                            const Conv2dParams& p, const char* op, const char* image_arg, const char* filters_arg) {
  check_float(image, op, image_arg);
  check_ndim(image, 4, op, image_arg);
  if (p.stride_h < 1) fail_value(op, "stride_h", p.stride_h, "at least 1");
  if (p.stride_w < 1) fail_value(op, "stride_w", p.stride_w, "at least 1");
  if (p.pad_top < 0) fail_value(op, "pad_top", p.pad_top, "at least 0");
  if (p.pad_left < 0) fail_value(op, "pad_left", p.pad_left, "at least 0");
  if (p.pad_bottom < 0) fail_value(op, "pad_bottom", p.pad_bottom, "at least 0");
  if (p.pad_right < 0) fail_value(op, "pad_right", p.pad_right, "at least 0");
  ConvGeometry g;
  g.p = p;
  g.n = image.dim(0), g.c = image.dim(1), g.h = image.dim(2), g.w = image.dim(3);
  g.k = k, g.kh = kh, g.kw = kw;
  std::int64_t span_h = g.h + p.pad_top + p.pad_bottom, span_w = g.w + p.pad_left + p.pad_right;
  const std::string height = std::string("kernel height of ") + filters_arg, width = std::string("kernel width of ") + filters_arg;
  if (g.kh < 1 || g.kh > span_h)
    fail_value(op, height.c_str(), static_cast<double>(g.kh), "1 .. input height + pad_top + pad_bottom");
  if (g.kw < 1 || g.kw > span_w)
    fail_value(op, width.c_str(), static_cast<double>(g.kw), "1 .. input width + pad_left + pad_right");
  g.oh = (span_h - g.kh) / p.stride_h + 1;
  g.ow = (span_w - g.kw) / p.stride_w + 1;
  return g;
}

ConvGeometry conv_geometry(const Tensor& image, const Tensor& filters, const Tensor& out, const Conv2dParams& p,
                           const char* op, const char* image_arg, const char* filters_arg, const char* out_arg) {
  check_float(image, op, image_arg);
  check_ndim(image, 4, op, image_arg);
  check_same_dtype(filters, image, op, filters_arg);
  check_ndim(filters, 4, op, filters_arg);
  check_same_dtype(out, image, op, out_arg);
  check_shape(filters, {filters.dim(0), image.dim(1), filters.dim(2), filters.dim(3)}, op, filters_arg);
  const ConvGeometry g = plane_geometry(image, filters.dim(0), filters.dim(2), filters.dim(3), p, op, image_arg, filters_arg);
  check_shape(out, {g.n, g.k, g.oh, g.ow}, op, out_arg);
  return g;
}

}  // namespace ablate::kernels::cpu
