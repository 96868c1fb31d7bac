// The windows of a pooling op (Pool2dParams, op_params.h), shared by the NCHW loops
// (pool2d.cpp) and the channel-blocked ones (pool2d_blocked.cpp): output cell (oh, ow) reads
// rows [lo_h[oh], hi_h[oh]) and columns [lo_w[ow], hi_w[ow]) of its plane, clipped to the image,
// and averages over count_h[oh] * count_w[ow] cells.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/op_params.h"
#include "kernels/tensor.h"

namespace ablate::kernels::cpu {

struct PoolGeometry {
  std::int64_t planes, h, w, oh, ow;
};

// x [N,C,H,W] pooled with p (checked by the contract).
inline PoolGeometry pool_geometry(const Tensor& x, const Pool2dParams& p) {
  return {x.dim(0) * x.dim(1), x.dim(2), x.dim(3), p.out_h, p.out_w};
}

// 2x2 windows at stride 2 without padding, each inside the image (LeNet's pools, TF's 2x2 SAME
// pools over even sizes): max pooling runs loops of its own (pool2d.cpp), which oneDNN's
// backend takes over its NCHW primitive too.
inline bool two_by_two(const PoolGeometry& g, const Pool2dParams& p) {
  return p.kernel_h == 2 && p.kernel_w == 2 && p.stride_h == 2 && p.stride_w == 2 && p.pad_top == 0 && p.pad_left == 0 &&
         2 * g.oh <= g.h && 2 * g.ow <= g.w;
}

// The windows along one axis, computed once per call: output o reads [lo[o], hi[o]) of the
// input (clipped to the image) and counts `count[o]` cells towards the average divisor.
// Windows are separable, so the divisor of (oh, ow) is count_h[oh] * count_w[ow].
struct AxisWindows {
  std::vector<std::int64_t> lo, hi, count;
};

inline AxisWindows axis_windows(std::int64_t out, std::int64_t in, int kernel, int stride, int pad, int pad_end_limit,
                         bool count_padding) {
  AxisWindows a;
  a.lo.resize(static_cast<std::size_t>(out));
  a.hi.resize(static_cast<std::size_t>(out));
  a.count.resize(static_cast<std::size_t>(out));
  for (std::int64_t o = 0; o < out; ++o) {
    const std::int64_t start = o * stride - pad, lo = std::max<std::int64_t>(start, 0);
    const std::int64_t hi = std::max(lo, std::min<std::int64_t>(start + kernel, in));
    const auto i = static_cast<std::size_t>(o);
    a.lo[i] = lo;
    a.hi[i] = hi;
    a.count[i] = count_padding ? std::max<std::int64_t>(0, std::min<std::int64_t>(start + kernel, in + pad_end_limit) - start)
                               : hi - lo;
  }
  return a;
}

struct Windows {
  AxisWindows h, w;
};

inline Windows windows_of(const PoolGeometry& g, const Pool2dParams& p) {
  return {axis_windows(g.oh, g.h, p.kernel_h, p.stride_h, p.pad_top, p.pad_bottom_limit, p.avg_count_padding),
          axis_windows(g.ow, g.w, p.kernel_w, p.stride_w, p.pad_left, p.pad_right_limit, p.avg_count_padding)};
}

}  // namespace ablate::kernels::cpu
