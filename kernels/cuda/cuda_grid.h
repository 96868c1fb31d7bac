// The launch grid of the CUDA backend's own kernels and the place of one thread in it, in
// plain C++ that nvcc compiles for the device and the host compiler for the host run
// (cuda_host_launch.h). Each kernel is a struct (cuda_*_bodies.h) whose grid() is its launch
// configuration, written once, and whose per-thread body is a function of a ThreadIndex; the
// device launch (cuda_launch.h) and the host run both take the grid from grid().
//  - grid-stride kernels: blocks_for(n) blocks of kThreads (at most kMaxBlocks), each thread
//    walking i = block * threads + thread, i += blocks * threads while i < n;
//  - block-sum kernels: one block per reduced value, each thread summing a strided share, then
//    a fixed-order tree over shared memory (tree_step), so every sum is deterministic.
#pragma once

#include <cstdint>

#include "kernels/host_device.h"

namespace ablate::kernels::cuda {

constexpr int kThreads = 256;  // a power of two: the block-sum tree halves it
constexpr std::int64_t kMaxBlocks = 65535;

struct Grid {
  std::int64_t blocks_x = 1, blocks_y = 1;
  int threads = kThreads;
};

// One thread: its block (x, y), its index in the block, and the grid it runs in.
struct ThreadIndex {
  std::int64_t block_x, block_y;
  int thread;
  Grid grid;
};

// The grid of a grid-stride kernel over n elements: at least one block, at most kMaxBlocks.
inline Grid grid_stride_grid(std::int64_t n) {
  const std::int64_t blocks = (n + kThreads - 1) / kThreads;
  return {blocks < 1 ? 1 : (blocks > kMaxBlocks ? kMaxBlocks : blocks), 1, kThreads};
}
// One block of kThreads per (x, y) pair: per channel, per connection and tap.
inline Grid block_per(std::int64_t blocks_x, std::int64_t blocks_y = 1) { return {blocks_x, blocks_y, kThreads}; }

// The grid-stride walk of thread t: first element and step.
ABLATE_HOST_DEVICE inline std::int64_t grid_first(const ThreadIndex& t) { return t.block_x * t.grid.threads + t.thread; }
ABLATE_HOST_DEVICE inline std::int64_t grid_step(const ThreadIndex& t) { return t.grid.blocks_x * t.grid.threads; }

// Per-thread partial sums of a block-sum kernel: W values reduced side by side.
template <int W> struct Sums {
  double v[W];
};

// One level of the block's fixed-order tree: thread `thread` adds the value `stride` above it.
// The device runs it for every thread with a barrier between strides (kThreads / 2 down to 1).
template <int W> ABLATE_HOST_DEVICE inline void tree_step(Sums<W>* shared, int thread, int stride) {
  if (thread < stride)
    for (int k = 0; k < W; ++k) shared[thread].v[k] += shared[thread + stride].v[k];
}

}  // namespace ablate::kernels::cuda

// for i over [0, n): the grid-stride loop of thread t.
#define ABLATE_GRID_LOOP(i, n, t) \
  for (std::int64_t i = ::ablate::kernels::cuda::grid_first(t); i < (n); i += ::ablate::kernels::cuda::grid_step(t))
// for j over [0, m): thread t's strided share of its block's work.
#define ABLATE_BLOCK_LOOP(j, m, t) for (std::int64_t j = (t).thread; j < (m); j += (t).grid.threads)
