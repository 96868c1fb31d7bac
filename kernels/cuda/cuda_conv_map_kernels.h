// Launchers of the CUDA backend's connection-table convolution (Torch's SpatialConvolutionMap,
// see kernels/reference/reference_conv_map.cpp for the math): table i32 [T, 2] of (input plane,
// output plane) pairs, w [T,KH,KW], x [N,C,H,W], y [N,K,OH,OW]. Every pointer is a device
// pointer; T is float or double; sums accumulate in double and are rounded once. No atomics:
// each output element is one thread's fixed-order sum, so results are deterministic.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/op_params.h"
#include "kernels/tensor.h"

namespace ablate::kernels::cuda {

struct MapGeometry {
  std::int64_t N, C, H, W, K, KH, KW, OH, OW, T;
  int stride_h, stride_w, pad_top, pad_left;
};

// The geometry of image [N,C,H,W], kernels [T,KH,KW] and out [N,K,OH,OW] (checked shapes).
inline MapGeometry map_geometry(const Shape& image, const Shape& kernels, const Shape& out, const Conv2dParams& p) {
  return {image[0], image[1], image[2], image[3], out[1], kernels[1], kernels[2], out[2], out[3], kernels[0],
          p.stride_h, p.stride_w, p.pad_top, p.pad_left};
}

// The connections grouped by one plane (input or output): those of plane q are
// order[offsets[q] .. offsets[q + 1]) in table order; one i32 array, offsets [planes + 1]
// then order [T] (built on the host from the checked table).
struct MapGroups {
  const std::int32_t* offsets;
  const std::int32_t* order;
};

// MapGroups' one array for `table` i32 [T, 2] (checked: plane indices in range) grouped by
// the plane in `column` (0: input, 1: output) of `planes` planes.
inline std::vector<std::int32_t> map_groups_array(const std::vector<std::int32_t>& table, std::int64_t T, int column,
                                                  std::int64_t planes) {
  std::vector<std::int32_t> host(static_cast<std::size_t>(planes + 1 + T), 0);
  std::int32_t* offsets = host.data();
  std::int32_t* order = host.data() + planes + 1;
  for (std::int64_t t = 0; t < T; ++t) ++offsets[table[2 * t + column] + 1];
  for (std::int64_t q = 0; q < planes; ++q) offsets[q + 1] += offsets[q];
  std::vector<std::int32_t> next(offsets, offsets + planes);
  for (std::int64_t t = 0; t < T; ++t) order[next[table[2 * t + column]]++] = static_cast<std::int32_t>(t);
  return host;
}
// The MapGroups view of such an array (on the host or the device) of `planes` planes.
inline MapGroups map_groups_of(const std::int32_t* array, std::int64_t planes) { return {array, array + planes + 1}; }

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
