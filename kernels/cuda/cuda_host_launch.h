// The host run of the CUDA backend's own kernels (tests/kernels/cuda_host_kernels_test.cpp):
// the same kernel structs (cuda_*_bodies.h) over the same grid() as the device launch
// (cuda_launch.h), every block and every thread, the tail past the data included, on one CPU
// thread. A barrier becomes a split: a block-sum kernel runs each phase's partial() for all
// of its threads, then each tree level for all of them, as the device does between its
// __syncthreads(). The order of blocks and threads can be reversed: a correct kernel gives the
// same bits in any order, as the device promises no order. What a host run cannot see: timing,
// races the barriers would hide or miss (the device's memory model), the hardware's float
// contraction (the device code's __dadd_rn/__dmul_rn are plain + and * here).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/cuda/cuda_grid.h"

namespace ablate::kernels::cuda {

enum class HostOrder { forward, reverse };

namespace host_detail {

// Calls f(k) for k over [0, n) in the given order.
template <class F> void each(std::int64_t n, HostOrder order, F&& f) {
  for (std::int64_t k = 0; k < n; ++k) f(order == HostOrder::forward ? k : n - 1 - k);
}

// Calls f(block_x, block_y) for every block of g.
template <class F> void each_block(const Grid& g, HostOrder order, F&& f) {
  each(g.blocks_y, order, [&](std::int64_t by) { each(g.blocks_x, order, [&](std::int64_t bx) { f(bx, by); }); });
}

}  // namespace host_detail

// Every thread of k.grid() calls k(thread).
template <class Kernel> void run_grid_on_host(const Kernel& k, HostOrder order = HostOrder::forward) {
  const Grid g = k.grid();
  host_detail::each_block(g, order, [&](std::int64_t bx, std::int64_t by) {
    host_detail::each(g.threads, order, [&](std::int64_t t) { k(ThreadIndex{bx, by, int(t), g}); });
  });
}

// A block-sum kernel (see cuda_launch.h's block_sums_kernel), its barriers split.
template <class Kernel> void run_block_sums_on_host(const Kernel& k, HostOrder order = HostOrder::forward) {
  using P = typename Kernel::Partial;
  const Grid g = k.grid();
  if (g.threads < 1 || g.threads > kThreads || (g.threads & (g.threads - 1)) != 0)
    throw std::logic_error("a block-sum kernel's block of " + std::to_string(g.threads) +
                           " threads: the device's tree needs a power of two of at most " + std::to_string(kThreads));
  std::vector<P> shared(static_cast<std::size_t>(g.threads));
  host_detail::each_block(g, order, [&](std::int64_t bx, std::int64_t by) {
    P totals[Kernel::kPhases];
    for (int phase = 0; phase < Kernel::kPhases; ++phase) {
      host_detail::each(g.threads, order, [&](std::int64_t t) {
        shared[static_cast<std::size_t>(t)] = k.partial(ThreadIndex{bx, by, int(t), g}, phase, totals);
      });
      for (int stride = g.threads / 2; stride > 0; stride /= 2)
        host_detail::each(g.threads, order, [&](std::int64_t t) { tree_step(shared.data(), int(t), stride); });
      totals[phase] = shared[0];
    }
    k.finish(ThreadIndex{bx, by, 0, g}, totals);
  });
}

}  // namespace ablate::kernels::cuda
