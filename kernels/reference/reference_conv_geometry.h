// The sizes of a reference convolution, checked once at an op's entry and shared by the
// dense convolution (reference_conv.cpp) and the connection-table convolution
// (reference_conv_map.cpp): x [N,C,H,W], K output planes of KH x KW kernels, y [N,K,OH,OW] with
// OH = (H + pad_top + pad_bottom - KH) / stride_h + 1 (likewise OW).
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

// Checks the strides, paddings and that the padded input holds one KH x KW window; derives
// the output size of x [N,C,H,W] convolved into K planes.
ConvGeometry plane_geometry(const char* op, const Shape& x, std::int64_t K, std::int64_t KH, std::int64_t KW,
                            const Conv2dParams& p);
// Dense convolution: w [K,C,KH,KW] must have x's C input channels.
ConvGeometry conv_geometry(const char* op, const Shape& x, const Shape& w, const Conv2dParams& p);

inline Shape output_shape(const ConvGeometry& g) { return {g.N, g.K, g.OH, g.OW}; }

}  // namespace ablate::kernels::reference
