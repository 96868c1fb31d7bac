// The floating-point operations of one Backend op call, as an observer receives them
// (the profiler's GFLOP/s per op). 2 per multiply-add; ops other than these count 0:
//   gemm                      2 M N K
//   conv2d (each direction)   2 N K C KH KW OH OW     (w [K,C,KH,KW], y [N,K,OH,OW])
//   conv2d_map (each)         2 N T KH KW OH OW       (w [T,KH,KW])
//   linear (each direction)   2 N I O                 (w [O,I])
#pragma once

#include <cstdint>

#include "kernels/tensor.h"

namespace ablate::kernels::flops {

inline double real(std::int64_t v) { return static_cast<double>(v); }

// c [M,N] = op(a) op(b) with K = a's inner dimension.
inline double gemm(bool trans_a, const Tensor& a, const Tensor& c) {
  return 2 * real(c.numel()) * real(trans_a ? a.dim(0) : a.dim(1));
}
// w [K,C,KH,KW] and the output-side tensor o [N,K,OH,OW].
inline double conv2d(const Tensor& w, const Tensor& o) { return 2 * real(o.numel()) * real(w.numel() / w.dim(0)); }
// w [T,KH,KW] and o [N,K,OH,OW].
inline double conv2d_map(const Tensor& w, const Tensor& o) {
  return 2 * real(o.dim(0)) * real(w.numel()) * real(o.dim(2)) * real(o.dim(3));
}
// w [O,I] and a batch of n.
inline double linear(const Tensor& w, std::int64_t n) { return 2 * real(n) * real(w.numel()); }

}  // namespace ablate::kernels::flops
