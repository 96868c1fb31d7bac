// CUDA kernels of the connection-table convolution (see cuda_conv_map_kernels.h). Padded
// pixels are zero and skipped; output (oh, ow) tap (a, b) reads input
// (oh * stride_h - pad_top + a, ow * stride_w - pad_left + b).
#include "kernels/cuda/cuda_conv_map_kernels.h"

#include <algorithm>

#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/cuda_launch.h"

namespace ablate::kernels::cuda {
namespace {

template <class T>
__global__ void forward_kernel(MapGeometry g, const T* x, const T* w, const T* bias, const std::int32_t* table,
                               MapGroups by_output, T* y) {
  GRID_LOOP(idx, g.N * g.K * g.OH * g.OW) {
    const std::int64_t ow = idx % g.OW, oh = (idx / g.OW) % g.OH, o = (idx / (g.OW * g.OH)) % g.K,
                       n = idx / (g.OW * g.OH * g.K);
    double acc = bias ? double(bias[o]) : 0.0;
    for (std::int32_t j = by_output.offsets[o]; j < by_output.offsets[o + 1]; ++j) {
      const std::int64_t t = by_output.order[j], i = table[2 * t];
      const T* plane = x + (n * g.C + i) * g.H * g.W;
      const T* k = w + t * g.KH * g.KW;
      for (std::int64_t a = 0; a < g.KH; ++a) {
        const std::int64_t h = oh * g.stride_h - g.pad_top + a;
        if (h < 0 || h >= g.H) continue;
        for (std::int64_t b = 0; b < g.KW; ++b) {
          const std::int64_t c = ow * g.stride_w - g.pad_left + b;
          if (c < 0 || c >= g.W) continue;
          acc += double(plane[h * g.W + c]) * double(k[a * g.KW + b]);
        }
      }
    }
    y[idx] = T(acc);
  }
}

template <class T>
__global__ void backward_data_kernel(MapGeometry g, const T* dy, const T* w, const std::int32_t* table,
                                     MapGroups by_input, T* dx) {
  GRID_LOOP(idx, g.N * g.C * g.H * g.W) {
    const std::int64_t col = idx % g.W, row = (idx / g.W) % g.H, i = (idx / (g.W * g.H)) % g.C,
                       n = idx / (g.W * g.H * g.C);
    double acc = 0;
    for (std::int32_t j = by_input.offsets[i]; j < by_input.offsets[i + 1]; ++j) {
      const std::int64_t t = by_input.order[j], o = table[2 * t + 1];
      const T* plane = dy + (n * g.K + o) * g.OH * g.OW;
      const T* k = w + t * g.KH * g.KW;
      for (std::int64_t a = 0; a < g.KH; ++a) {
        const std::int64_t hs = row + g.pad_top - a;  // = oh * stride_h
        if (hs < 0 || hs % g.stride_h != 0 || hs / g.stride_h >= g.OH) continue;
        const std::int64_t oh = hs / g.stride_h;
        for (std::int64_t b = 0; b < g.KW; ++b) {
          const std::int64_t ws = col + g.pad_left - b;
          if (ws < 0 || ws % g.stride_w != 0 || ws / g.stride_w >= g.OW) continue;
          acc += double(plane[oh * g.OW + ws / g.stride_w]) * double(k[a * g.KW + b]);
        }
      }
    }
    dx[idx] = T(acc);
  }
}

// blockIdx.x: connection t; blockIdx.y: tap a * KW + b.
template <class T>
__global__ void backward_weights_kernel(MapGeometry g, const T* x, const T* dy, const std::int32_t* table, T* dw) {
  __shared__ double shared[kThreads];
  const std::int64_t t = blockIdx.x, tap = blockIdx.y, a = tap / g.KW, b = tap % g.KW;
  const std::int64_t i = table[2 * t], o = table[2 * t + 1];
  double s = 0;
  for (std::int64_t j = threadIdx.x; j < g.N * g.OH * g.OW; j += blockDim.x) {
    const std::int64_t ow = j % g.OW, oh = (j / g.OW) % g.OH, n = j / (g.OW * g.OH);
    const std::int64_t h = oh * g.stride_h - g.pad_top + a, c = ow * g.stride_w - g.pad_left + b;
    if (h < 0 || h >= g.H || c < 0 || c >= g.W) continue;
    s += double(x[((n * g.C + i) * g.H + h) * g.W + c]) * double(dy[((n * g.K + o) * g.OH + oh) * g.OW + ow]);
  }
  shared[threadIdx.x] = s;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) shared[threadIdx.x] += shared[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) dw[t * g.KH * g.KW + tap] = T(shared[0]);
}

}  // namespace

template <class T>
void launch_conv_map_forward(const MapGeometry& g, const T* x, const T* w, const T* bias, const std::int32_t* table,
                             MapGroups by_output, T* y) {
  const std::int64_t n = g.N * g.K * g.OH * g.OW;
  if (n == 0) return;
  forward_kernel<T><<<blocks_for(n), kThreads>>>(g, x, w, bias, table, by_output, y);
  ABLATE_CUDA_LAUNCHED();
}

template <class T>
void launch_conv_map_backward_data(const MapGeometry& g, const T* dy, const T* w, const std::int32_t* table,
                                   MapGroups by_input, T* dx) {
  const std::int64_t n = g.N * g.C * g.H * g.W;
  if (n == 0) return;
  backward_data_kernel<T><<<blocks_for(n), kThreads>>>(g, dy, w, table, by_input, dx);
  ABLATE_CUDA_LAUNCHED();
}

template <class T>
void launch_conv_map_backward_weights(const MapGeometry& g, const T* x, const T* dy, const std::int32_t* table, T* dw) {
  if (g.T == 0 || g.KH * g.KW == 0) return;
  const dim3 grid(static_cast<unsigned>(g.T), static_cast<unsigned>(g.KH * g.KW));
  backward_weights_kernel<T><<<grid, kThreads>>>(g, x, dy, table, dw);
  ABLATE_CUDA_LAUNCHED();
}

#define ABLATE_INSTANTIATE_CONV_MAP(T)                                                                              \
  template void launch_conv_map_forward<T>(const MapGeometry&, const T*, const T*, const T*, const std::int32_t*, \
                                           MapGroups, T*);                                                        \
  template void launch_conv_map_backward_data<T>(const MapGeometry&, const T*, const T*, const std::int32_t*,     \
                                                 MapGroups, T*);                                                  \
  template void launch_conv_map_backward_weights<T>(const MapGeometry&, const T*, const T*, const std::int32_t*, T*);

ABLATE_INSTANTIATE_CONV_MAP(float)
ABLATE_INSTANTIATE_CONV_MAP(double)

}  // namespace ablate::kernels::cuda
