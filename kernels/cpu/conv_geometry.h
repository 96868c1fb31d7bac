// The sizes of one convolution, read from its tensors (checked by the contract):
// x [N,C,H,W], w [K,C,KH,KW], y [N,K,OH,OW] with OH = (H + pad_top + pad_bottom - KH) / stride_h + 1.
// The im2col matrix of one image is [C*KH*KW, OH*OW] (Caffe's col_buffer_ layout).
#pragma once

#include <cstdint>

#include "kernels/op_params.h"
#include "kernels/tensor.h"

namespace ablate::kernels::cpu {

struct ConvGeometry {
  std::int64_t n = 0, c = 0, h = 0, w = 0;  // input
  std::int64_t k = 0, kh = 0, kw = 0;       // filters
  std::int64_t oh = 0, ow = 0;              // output
  Conv2dParams p;

  std::int64_t col_rows() const { return c * kh * kw; }
  std::int64_t pixels() const { return oh * ow; }  // columns of one image's im2col
  std::int64_t in_size() const { return c * h * w; }
  std::int64_t out_size() const { return k * oh * ow; }
  // A 1x1 convolution with stride 1 and no padding: the im2col matrix is the image itself.
  bool pointwise() const {
    return kh == 1 && kw == 1 && p.stride_h == 1 && p.stride_w == 1 && p.pad_top == 0 && p.pad_left == 0 &&
           p.pad_bottom == 0 && p.pad_right == 0;
  }
};

// image [N,C,H,W] (x or dx) convolved with filters [K,C,KH,KW] (w or dw); the contract
// (kernels/contract/) has checked the shapes and parameters.
ConvGeometry conv_geometry(const Tensor& image, const Tensor& filters, const Conv2dParams& p);
// The part shared with the connection-table convolution (conv_map.cpp): image [N,C,H,W] into
// k planes with kh x kw kernels.
ConvGeometry plane_geometry(const Tensor& image, std::int64_t k, std::int64_t kh, std::int64_t kw,
                            const Conv2dParams& p);

}  // namespace ablate::kernels::cpu
