// Direct convolution loops for layers with few input channels (C <= kFewChannelsMax), such as
// the first layer of Caffe's LeNet (1 -> 20, 5x5) or cifar10_quick (3 -> 32). im2col + GEMM
// fits them badly: the GEMM's inner dimension is C*KH*KW = 25..100, too short to pay for
// packing, and the column matrix is KH*KW times the image. Here each output row is computed
// from the C*KH*KW shifted input rows it reads, vectorised along the output width:
//   forward          y[n,k,oh,:]    = bias[k] + sum over taps t=(c,i,j) of w[k,t] * xrow_t(oh)
//   backward data    dxrow_t(oh)   += sum over k of w[k,t] * dy[n,k,oh,:]    (then un-padded)
//   backward weights dw[k,t]        = sum over n, oh of the dot product dy[n,k,oh,:] . xrow_t(oh)
// where xrow_t(oh) = x[n, c, oh*sh - pt + i, j - pl + sw*(0..OW-1)], read from a zero-padded copy
// of the image whose columns are split by phase modulo the stride, so that every tap's row is a
// contiguous run. Register tiles of up to 4 output channels (or taps) x 4 vectors, of 32 bytes,
// or 64 in an AVX-512 build where a row pads to no more lanes with them (conv_few_channels.cpp);
// where it pads to more (LeNet's 24 outputs), the forward and the weight gradient run their
// tiles over the pixels laid end to end in whole vectors instead, read from KW shifted copies of
// the image (shifted_rows.h) where the stride down is 1, else (the weight gradient) from its im2col.
// ablate's own path, no framework's: the backends run it under the omp_per_image lowering
// (ConvSetup::few_channels, conv_lowering.h), over the same image chunks as the GEMM loops.
#pragma once

#include <cstdint>

#include "kernels/cpu/conv_geometry.h"

namespace ablate::kernels::cpu {

constexpr std::int64_t kFewChannelsMax = 4;

// Whether the direct loops take `g` (when the setup allows them).
inline bool few_channels_fit(const ConvGeometry& g) { return g.c >= 1 && g.c <= kFewChannelsMax; }

// Each runs images [begin, end) on the calling thread; per-thread scratch (scratch.h).
template <class T>
void few_channels_forward(const ConvGeometry& g, const T* x, const T* w, const T* bias, T* y, std::int64_t begin,
                          std::int64_t end);
template <class T>
void few_channels_backward_data(const ConvGeometry& g, const T* dy, const T* w, T* dx, std::int64_t begin,
                                std::int64_t end);
// dw_acc [K, C*KH*KW] = the sum over images [begin, end) (zero when the range is empty).
template <class T>
void few_channels_backward_weights(const ConvGeometry& g, const T* x, const T* dy, T* dw_acc, std::int64_t begin,
                                   std::int64_t end);


// The weight gradient of any geometry as those dot products over each image's im2col
// [C*KH*KW, OH*OW], the pixels end to end (no row padding), summed lane by lane over the images
// and the lanes added once at the end: the fastest form where K x C*KH*KW is small and OH*OW long
// (LeNet's and the TF CNN's conv1; the tiled_gemm lowering takes it by its cost model,
// conv_tiled.cpp). dw_acc as above.
template <class T>
void dot_backward_weights(const ConvGeometry& g, const T* x, const T* dy, T* dw_acc, std::int64_t begin,
                          std::int64_t end);

}  // namespace ablate::kernels::cpu
