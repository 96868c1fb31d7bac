// The sizes of a reference convolution, shared by the dense convolution (reference_conv.cpp)
// and the connection-table convolution (reference_conv_map.cpp): x [N,C,H,W], K output planes
// of KH x KW kernels, y [N,K,OH,OW] with OH = (H + pad_top + pad_bottom - KH) / stride_h + 1
// (likewise OW). The contract (kernels/contract/) has checked the shapes and parameters.
#pragma once

#include <cstdint>

#include "kernels/op_params.h"
#include "kernels/tensor.h"

namespace ablate::kernels::reference {

struct ConvGeometry {
  std::int64_t N, C, H, W;  // input
  std::int64_t K, KH, KW;   // output planes, kernel
  std::int64_t OH, OW;      // output
  Conv2dParams p;
};

// x [N,C,H,W] convolved into K planes with KH x KW kernels.
inline ConvGeometry plane_geometry(const Shape& x, std::int64_t K, std::int64_t KH, std::int64_t KW,
                                   const Conv2dParams& p) {
  const std::int64_t OH = (x[2] + p.pad_top + p.pad_bottom - KH) / p.stride_h + 1;
  const std::int64_t OW = (x[3] + p.pad_left + p.pad_right - KW) / p.stride_w + 1;
  return {x[0], x[1], x[2], x[3], K, KH, KW, OH, OW, p};
}
// Dense convolution: w [K,C,KH,KW].
inline ConvGeometry conv_geometry(const Shape& x, const Shape& w, const Conv2dParams& p) {
  return plane_geometry(x, w[0], w[2], w[3], p);
}

}  // namespace ablate::kernels::reference
