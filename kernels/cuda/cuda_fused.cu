// The fused elementwise kernel (see cuda_fused_kernels.h): a grid-stride loop over the
// elements, each thread running the whole chain on its element in registers. Each step
// computes in double and rounds to T once, as the reference backend's ops do (its activation
// formulas are kernels/activation_formulas.h); the products and
// sums use the __dmul_rn / __dadd_rn intrinsics, which the compiler never merges into a fused
// multiply-add across steps, so every step rounds where the unfused op rounds.
#include "kernels/activation_formulas.h"
#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/cuda_fused_kernels.h"
#include "kernels/cuda/cuda_launch.h"

namespace ablate::kernels::cuda {
namespace {

template <class T> __global__ void fused_kernel(DeviceChain c, std::int64_t n, T* out) {
  GRID_LOOP(i, n) {
    T r = static_cast<const T*>(c.inputs[0])[i];
    for (int k = 0; k < c.steps; ++k) {
      const T* e = static_cast<const T*>(c.inputs[c.operand[k] < 0 ? 0 : c.operand[k]]);
      switch (c.op[k]) {
        case ChainOp::bias_add: r = T(__dadd_rn(double(r), double(e[(i / c.inner) % c.channels]))); break;
        case ChainOp::activation: r = T(activate(c.activation[k], double(r))); break;
        case ChainOp::activation_grad:
          r = T(__dmul_rn(double(r), derivative_from_output(c.activation[k], double(e[i]))));
          break;
        case ChainOp::mul: r = T(__dmul_rn(double(r), double(e[i]))); break;
        case ChainOp::add: r = T(__dadd_rn(double(r), double(e[i]))); break;
        case ChainOp::scale: r = T(__dmul_rn(c.alpha[k], double(r))); break;
      }
    }
    out[i] = r;
  }
}

}  // namespace

template <class T> void launch_fused_elementwise(const DeviceChain& chain, std::int64_t n, T* out) {
  fused_kernel<T><<<blocks_for(n), kThreads>>>(chain, n, out);
  ABLATE_CUDA_LAUNCHED();
}

template void launch_fused_elementwise<float>(const DeviceChain&, std::int64_t, float*);
template void launch_fused_elementwise<double>(const DeviceChain&, std::int64_t, double*);

}  // namespace ablate::kernels::cuda
