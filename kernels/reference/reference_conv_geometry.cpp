// Geometry checks of the reference convolutions (see reference_conv_geometry.h).
#include "kernels/reference/reference_conv_geometry.h"

#include <string>

#include "kernels/reference/reference_checks.h"

namespace ablate::kernels::reference {

ConvGeometry plane_geometry(const char* op, const Shape& x, std::int64_t K, std::int64_t KH, std::int64_t KW,
                            const Conv2dParams& p) {
  if (p.stride_h < 1 || p.stride_w < 1)
    fail(op, "stride " + std::to_string(p.stride_h) + "x" + std::to_string(p.stride_w) + ", expected at least 1");
  if (p.pad_top < 0 || p.pad_left < 0 || p.pad_bottom < 0 || p.pad_right < 0)
    fail(op, "padding (top " + std::to_string(p.pad_top) + ", left " + std::to_string(p.pad_left) + ", bottom " +
                 std::to_string(p.pad_bottom) + ", right " + std::to_string(p.pad_right) + "), expected >= 0");
  ConvGeometry g{x[0], x[1], x[2], x[3], K, KH, KW, 0, 0, p};
  std::int64_t padded_h = g.H + p.pad_top + p.pad_bottom, padded_w = g.W + p.pad_left + p.pad_right;
  if (KH < 1 || KW < 1)
    fail(op, "kernel " + std::to_string(KH) + "x" + std::to_string(KW) + ", expected at least 1x1");
  if (padded_h < KH || padded_w < KW)
    fail(op, "padded input " + std::to_string(padded_h) + "x" + std::to_string(padded_w) + " is smaller than the kernel " +
                 std::to_string(KH) + "x" + std::to_string(KW));
  g.OH = (padded_h - KH) / p.stride_h + 1;
  g.OW = (padded_w - KW) / p.stride_w + 1;
  return g;
}

ConvGeometry conv_geometry(const char* op, const Shape& x, const Shape& w, const Conv2dParams& p) {
  if (w[1] != x[1])
    fail(op, "filters " + shape_string(w) + " have " + std::to_string(w[1]) + " input channels, the input " +
                 shape_string(x) + " has " + std::to_string(x[1]));
  return plane_geometry(op, x, w[0], w[2], w[3], p);
}

}  // namespace ablate::kernels::reference
