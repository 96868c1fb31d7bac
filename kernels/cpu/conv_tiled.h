// The tiled_gemm lowering's convolution loops (ConvLowering::tiled_gemm, conv2d.cpp): ablate's
// own GEMM (tiled_gemm.h), which takes no B^T but reads one image's im2col matrix in place
// instead of writing it, where the geometry lets it:
//   forward          y [K, P] = W [K, R] x col                 col read as B (tiled_gemm_columns;
//                                                             from the image's pairs of rows
//                                                             where a vector is two output rows)
//   backward data    col = W^T [R, K] x dY [K, P]             added onto dx as C, col2im folded
//                                                             into the tiles' stores
//   backward weights dW^T [R, K] += col [R, P] x dY^T [P, K]   col read as A (tiled_gemm_image_a)
// with R = C*KH*KW and P = OH*OW. The forward and the data gradient need stride 1 and output rows
// of whole half vectors (in_place_columns_fit); the weight gradient any stride. A padded
// convolution reads (or adds onto) a copy of the image with its zero border. Otherwise the
// forward and data gradient run conv2d.cpp's im2col loops on the tiles, and the weight gradient
// takes each image's im2row, dW [K, R] += dY [K, P] x rows [P, R] (im2col.h), or dot products
// over its im2col (conv_few_channels.h), whichever of the three costs least
// (tiled_backward_weights_images).
#pragma once

#include <cstdint>
#include <optional>

#include "kernels/cpu/conv_geometry.h"
#include "kernels/op_params.h"

namespace ablate::kernels::cpu {

// Whether the forward and data gradient read the image in place.
template <class T> bool in_place_columns_fit(const ConvGeometry& g);

// y of images [begin, end) = f(W x col + bias), f the epilogue (conv_epilogue.h).
template <class T>
void tiled_forward_images(const ConvGeometry& g, int threads, const T* x, const T* w, const T* bias,
                          std::optional<Activation> activation, T* y, std::int64_t begin, std::int64_t end);
// W [K, R] with each row's taps reordered from (c, i, j) to (i, j, c), into w_ijc (K*R values):
// the data gradient's weights. In (c, i, j) order a tile's rows are taps (c, i, j..j+4), whose
// columns add onto dx at offsets one apart, each load overlapping the store just before it,
// which the CPU then cannot forward; with channels innermost a tile's rows add onto different
// planes (LeNet's conv2: 24.9 -> 23.0 us an image, one thread; the same sums in the same order
// for each element of dx, so the same bits).
template <class T> void taps_channels_inner(const ConvGeometry& g, const T* w, T* w_ijc);
// dx of images [begin, end) (overwritten), from w_ijc = taps_channels_inner(W).
template <class T>
void tiled_backward_data_images(const ConvGeometry& g, const T* dy, const T* w_ijc, T* dx, std::int64_t begin,
                                std::int64_t end);
// dw_acc [K, R] = the weight gradient summed over images [begin, end) (zero when empty).
template <class T>
void tiled_backward_weights_images(const ConvGeometry& g, const T* x, const T* dy, T* dw_acc, std::int64_t begin,
                                   std::int64_t end);

}  // namespace ablate::kernels::cpu
