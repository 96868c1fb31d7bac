// The sizes of one convolution, read from its tensors and checked once at an op's entry:
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

// Checks image [N,C,H,W], filters [K,C,KH,KW] and out [N,K,OH,OW] (all of one float dtype,
// named by image_arg / out_arg in errors) and the parameters; returns the geometry.
ConvGeometry conv_geometry(const Tensor& image, const Tensor& filters, const Tensor& out, const Conv2dParams& p,
                           const char* op, const char* image_arg, const char* filters_arg, const char* out_arg);
// The part shared with the connection-table convolution (conv_map.cpp): checks the float image
// [N,C,H,W] and the parameters, and sizes its convolution into k planes with kh x kw kernels
// (from the tensor named filters_arg); the caller checks the filters' and the output's shapes.
ConvGeometry plane_geometry(const Tensor& image, std::int64_t k, std::int64_t kh, std::int64_t kw,
                            const Conv2dParams& p, const char* op, const char* image_arg, const char* filters_arg);

}  // namespace ablate::kernels::cpu
