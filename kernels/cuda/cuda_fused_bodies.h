// The fused elementwise kernel as a struct (see cuda_grid.h, cuda_fused_kernels.h): a
// grid-stride loop over the elements, each thread running the whole chain on its element in
// registers. Each step computes in double and rounds to T once, as the reference backend's
// ops do (its activation formulas are kernels/activation_formulas.h); on the device the
// products and sums use the __dmul_rn / __dadd_rn intrinsics, which the compiler never merges
// into a fused multiply-add across steps, so every step rounds where the unfused op rounds.
#pragma once

#include <cstdint>

#include "kernels/activation_formulas.h"
#include "kernels/cuda/cuda_fused_kernels.h"
#include "kernels/cuda/cuda_grid.h"

namespace ablate::kernels::cuda {

// a + b and a * b, each rounded once (never contracted into an FMA on the device).
ABLATE_HOST_DEVICE inline double add_rn(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
ABLATE_HOST_DEVICE inline double mul_rn(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

template <class T> struct FusedKernel {
  DeviceChain c;
  std::int64_t n;
  T* out;
  Grid grid() const { return grid_stride_grid(n); }
  ABLATE_HOST_DEVICE void operator()(const ThreadIndex& t) const {
    ABLATE_GRID_LOOP(i, n, t) {
      T r = static_cast<const T*>(c.inputs[0])[i];
      for (int k = 0; k < c.steps; ++k) {
        const T* e = static_cast<const T*>(c.inputs[c.operand[k] < 0 ? 0 : c.operand[k]]);
        switch (c.op[k]) {
          case ChainOp::bias_add: r = T(add_rn(double(r), double(e[(i / c.inner) % c.channels]))); break;
          case ChainOp::activation: r = T(activate(c.activation[k], double(r))); break;
          case ChainOp::activation_grad: r = T(mul_rn(double(r), derivative_from_output(c.activation[k], double(e[i])))); break;
          case ChainOp::mul: r = T(mul_rn(double(r), double(e[i]))); break;
          case ChainOp::add: r = T(add_rn(double(r), double(e[i]))); break;
          case ChainOp::scale: r = T(mul_rn(c.alpha[k], double(r))); break;
        }
      }
      out[i] = r;
    }
  }
};

}  // namespace ablate::kernels::cuda
