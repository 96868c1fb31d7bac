// Grow-only scratch memory of the CPU backends (im2col columns, permuted GEMM outputs,
// per-thread weight-gradient partials), one set per thread and kept for the thread's life:
// nothing is allocated per step once the largest layer has run (a first touch of fresh
// pages costs ~12 us per 4 KiB on the target machine). Caffe keeps its col_buffer_ Blob the
// same way. Per thread, so that an inter-op pool or OpenMP workers never share a buffer.
// Bytes come from cpu_allocator(), so they show in its live and peak counters.
#pragma once

#include <cstddef>

#include "kernels/tensor.h"

namespace ablate::kernels::cpu {

// Independent buffers that one op may hold at the same time (layout_*: the NHWC / HWIO copies
// of the eigen_spatial lowering's operands, kernels/eigen/eigen_spatial_conv.h, and layout_filters
// the tiled data gradient's reordered weights, conv2d.cpp; lane_sums: the
// vector partial sums of the few-channel weight gradient, conv_few_channels.cpp; tile_sums: the
// tiled_gemm lowering's weight gradient with its padded columns, conv2d.cpp; bias_partial: the
// weight gradient's per-image bias sums, conv2d.cpp; fused_images and fused_partial: a few
// images' convolution output and their weight gradient where the convolution runs fused with its
// max pooling, and worker_sums each worker's sum of those, conv_max_pool.cpp).
enum class ScratchSlot {
  columns,
  gemm_out,
  weight_partial,
  layout_in,
  layout_out,
  layout_filters,
  lane_sums,
  tile_sums,
  bias_partial,
  fused_images,
  fused_partial,
  worker_sums,
  count
};

// At least `bytes` of 64-byte aligned memory for `slot` on the calling thread; contents are
// unspecified and stay valid until the next call for the same slot on this thread.
void* scratch(ScratchSlot slot, std::size_t bytes);

// The scratch of `slot` on the calling thread as an allocator, for a Tensor over it
// (Tensor::uninitialized(shape, dtype, &allocator)): valid while nothing else asks for the slot.
class ScratchAllocator final : public Allocator {
 public:
  explicit ScratchAllocator(ScratchSlot slot) : slot_(slot) {}
  void* allocate(std::size_t bytes) override { return scratch(slot_, bytes); }
  void deallocate(void*, std::size_t) override {}  // the thread keeps it
  AllocatorStats stats() const override { return {}; }  // counted in cpu_allocator()'s
  void reset_peak() override {}
  Device device() const override { return Device::cpu; }

 private:
  ScratchSlot slot_;
};

template <class T> T* scratch_of(ScratchSlot slot, std::size_t count) {
  return static_cast<T*>(scratch(slot, count * sizeof(T)));
}

}  // namespace ablate::kernels::cpu
