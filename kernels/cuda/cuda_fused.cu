// The launcher of the fused elementwise kernel (FusedKernel, cuda_fused_bodies.h).
#include "kernels/cuda/cuda_fused_bodies.h"
#include "kernels/cuda/cuda_launch.h"

namespace ablate::kernels::cuda {

template <class T> void launch_fused_elementwise(const DeviceChain& chain, std::int64_t n, T* out) {
  launch_grid(FusedKernel<T>{chain, n, out});
}

template void launch_fused_elementwise<float>(const DeviceChain&, std::int64_t, float*);
template void launch_fused_elementwise<double>(const DeviceChain&, std::int64_t, double*);

}  // namespace ablate::kernels::cuda
