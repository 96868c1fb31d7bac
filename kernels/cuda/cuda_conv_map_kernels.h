// Launchers of the CUDA backend's connection-table convolution (Torch's SpatialConvolutionMap,
// see kernels/reference/reference_conv_map.cpp for the math): table i32 [T, 2] of (input plane,
// output plane) pairs, w [T,KH,KW], x [N,C,H,W], y [N,K,OH,OW]. Every pointer is a device
// pointer; T is float or double; sums accumulate in double and are rounded once. No atomics:
// each output element is one thread's fixed-order sum, so results are deterministic.
#pragma once

#include <cstdint>

namespace ablate::kernels::cuda {

struct MapGeometry {
  std::int64_t N, C, H, W, K, KH, KW, OH, OW, T;
  int stride_h, stride_w, pad_top, pad_left;
};

// The connections grouped by one plane (input or output): those of plane q are
// order[offsets[q] .. offsets[q + 1]) in table order; one i32 array, offsets [planes + 1]
// then order [T] (built on the host from the checked table).
struct MapGroups {
  const std::int32_t* offsets;
  const std::int32_t* order;
};

// One thread per y element: y[n,o] = bias[o] (bias may be null) + sum over o's connections.
template <class T>
void launch_conv_map_forward(const MapGeometry& g, const T* x, const T* w, const T* bias, const std::int32_t* table,
                             MapGroups by_output, T* y);
// One thread per dx element: the taps of the input plane's connections that read it.
template <class T>
void launch_conv_map_backward_data(const MapGeometry& g, const T* dy, const T* w, const std::int32_t* table,
                                   MapGroups by_input, T* dx);
// One block per (connection, kernel tap): a strided sum over (n, oh, ow) per thread, then a
// fixed shared-memory tree.
template <class T>
void launch_conv_map_backward_weights(const MapGeometry& g, const T* x, const T* dy, const std::int32_t* table, T* dw);

}  // namespace ablate::kernels::cuda
