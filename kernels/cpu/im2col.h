// im2col and col2im of one image, as Caffe's im2col_cpu / col2im_cpu (and Torch's unfold),
// with asymmetric padding. For image x [C,H,W] the column matrix is [C*KH*KW, OH*OW]:
//   col[(c*KH + i)*KW + j][oh*OW + ow] = x[c][oh*stride_h - pad_top + i][ow*stride_w - pad_left + j]
// and 0 where that falls in the padding. `ld` is the row stride of col, so that the columns of
// several images can sit side by side in one matrix [C*KH*KW, G*OH*OW] (batched mode).
// im2row is its transpose, a row per output pixel: row[oh*OW + ow][(c*KH + i)*KW + j], the
// row stride ld >= C*KH*KW with the columns past C*KH*KW zeroed (tiled_gemm's weight gradient,
// conv2d.cpp: there the taps lie along the vectors).
#pragma once

#include <cstdint>

#include "kernels/cpu/conv_geometry.h"

namespace ablate::kernels::cpu {

// Writes the OH*OW columns of image x into col (row stride ld >= OH*OW).
template <class T> void im2col(const ConvGeometry& g, const T* x, T* col, std::int64_t ld);
// Writes the OH*OW rows of image x into row (row stride ld >= C*KH*KW; the columns past
// C*KH*KW are zeroed).
template <class T> void im2row(const ConvGeometry& g, const T* x, T* row, std::int64_t ld);
// The adjoint: dx [C,H,W] = sum of the columns back onto the pixels they were read from.
// dx is overwritten.
template <class T> void col2im(const ConvGeometry& g, const T* col, std::int64_t ld, T* dx);

}  // namespace ablate::kernels::cpu
