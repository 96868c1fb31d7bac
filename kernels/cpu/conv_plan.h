// How one convolution call is split (see conv_lowering.h): how many OpenMP workers share the
// images (1 = the images in sequence, threads inside the GEMM), in how many contiguous chunks
// of images they take in turn, and how many images one GEMM covers. Workers take chunks
// dynamically, so one held up on a shared machine leaves its later chunks to the others;
// chunk boundaries depend on the batch and the thread count only, so that per-chunk weight
// gradient partials add up to the same bits on every run. A group's im2col matrix is kept under kColumnBudgetBytes, about one
// core's L2 (1 MiB on Zen 5): on LeNet (batch 64, 1 thread) groups under 1 MiB ran 1.4x faster
// than one group of all 64 images (8 MiB for conv2), whose columns stream through memory.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/cpu/conv_geometry.h"
#include "kernels/cpu/conv_lowering.h"

namespace ablate::kernels::cpu {

constexpr std::size_t kColumnBudgetBytes = std::size_t{1} << 20;

// Chunks per worker in the omp_* modes; one for the weight gradient, where each chunk costs a
// partial of the whole gradient (summed after) and, under tiled_gemm, its transpose (LeNet's
// conv2 on 2 threads, tiled: 1,173-1,178 us with four a worker, 954-977 with one).
constexpr std::int64_t kChunksPerWorker = 4;

struct ConvPlan {
  int workers = 1;          // > 1: OpenMP over images, single-threaded GEMMs
  std::int64_t chunks = 1;  // contiguous ranges of images, [n*c/chunks, n*(c+1)/chunks)
  std::int64_t group = 1;   // images per GEMM within a chunk
};

// Which of the three computations of a convolution is planned: Torch7's openmp_frames
// threading splits forward and backward data over OpenMP, the weight gradient not.
enum class ConvPass { forward, backward_data, backward_weights };

ConvPlan plan_conv(const ConvGeometry& g, const GemmLoops& loops, ConvPass pass, int threads, std::size_t element_bytes);

}  // namespace ablate::kernels::cpu
