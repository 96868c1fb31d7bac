// Sizes of a convolution (see conv_geometry.h).
#include "kernels/cpu/conv_geometry.h"

namespace ablate::kernels::cpu {

ConvGeometry plane_geometry(const Tensor& image, std::int64_t k, std::int64_t kh, std::int64_t kw,
                            const Conv2dParams& p) {
  ConvGeometry g;
  g.p = p;
  g.n = image.dim(0), g.c = image.dim(1), g.h = image.dim(2), g.w = image.dim(3);
  g.k = k, g.kh = kh, g.kw = kw;
  g.oh = (g.h + p.pad_top + p.pad_bottom - g.kh) / p.stride_h + 1;
  g.ow = (g.w + p.pad_left + p.pad_right - g.kw) / p.stride_w + 1;
  return g;
}

ConvGeometry conv_geometry(const Tensor& image, const Tensor& filters, const Conv2dParams& p) {
  return plane_geometry(image, filters.dim(0), filters.dim(2), filters.dim(3), p);
}

}  // namespace ablate::kernels::cpu
