// The device launch of the CUDA backend's own kernels (device code only: included by the .cu
// files). A kernel is a struct of cuda_*_bodies.h: its grid() is the launch configuration and
// its per-thread body a function of a ThreadIndex (cuda_grid.h); the two __global__ templates
// below run it, and cuda_host_launch.h runs the same struct over the same grid on the host.
//  - launch_grid(k): every thread calls k(thread);
//  - launch_block_sums(k): per phase, every thread computes k.partial(thread, phase, totals),
//    the block sums those in a fixed-order tree in shared memory (tree_step, a barrier between
//    levels) and every thread reads the phase's total; then thread 0 calls k.finish.
#pragma once

#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/cuda_grid.h"

namespace ablate::kernels::cuda {

__device__ inline ThreadIndex this_thread() {
  return {std::int64_t(blockIdx.x), std::int64_t(blockIdx.y), int(threadIdx.x),
          {std::int64_t(gridDim.x), std::int64_t(gridDim.y), int(blockDim.x)}};
}

template <class Kernel> __global__ void grid_kernel(Kernel k) { k(this_thread()); }

template <class Kernel> __global__ void block_sums_kernel(Kernel k) {
  using P = typename Kernel::Partial;
  __shared__ P shared[kThreads];
  const ThreadIndex t = this_thread();
  P totals[Kernel::kPhases];
  for (int phase = 0; phase < Kernel::kPhases; ++phase) {
    const P mine = k.partial(t, phase, totals);
    __syncthreads();  // the previous phase's readers of shared[0] are done
    shared[t.thread] = mine;
    __syncthreads();
    for (int stride = t.grid.threads / 2; stride > 0; stride /= 2) {
      tree_step(shared, t.thread, stride);
      __syncthreads();
    }
    totals[phase] = shared[0];
  }
  if (t.thread == 0) k.finish(t, totals);
}

// The kernel's grid() as CUDA dimensions; false for an empty grid (nothing to launch).
inline bool launch_dims(const Grid& g, dim3& blocks, dim3& threads) {
  if (g.blocks_x <= 0 || g.blocks_y <= 0) return false;
  blocks = dim3(static_cast<unsigned>(g.blocks_x), static_cast<unsigned>(g.blocks_y));
  threads = dim3(static_cast<unsigned>(g.threads));
  return true;
}

template <class Kernel> void launch_grid(const Kernel& k) {
  dim3 blocks, threads;
  if (!launch_dims(k.grid(), blocks, threads)) return;
  grid_kernel<Kernel><<<blocks, threads>>>(k);
  ABLATE_CUDA_LAUNCHED();
}

template <class Kernel> void launch_block_sums(const Kernel& k) {
  static_assert(Kernel::kPhases >= 1, "a block-sum kernel sums at least once");
  dim3 blocks, threads;
  if (!launch_dims(k.grid(), blocks, threads)) return;
  block_sums_kernel<Kernel><<<blocks, threads>>>(k);
  ABLATE_CUDA_LAUNCHED();
}

}  // namespace ablate::kernels::cuda
