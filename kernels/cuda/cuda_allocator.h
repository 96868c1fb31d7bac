// The device allocator of the CUDA backend: cudaMalloc'd blocks counted in device bytes and,
// like PyTorch's caching allocator (and Caffe's/TF's BFC allocators in spirit), freed blocks
// are kept by size for reuse instead of being returned to the driver each step.
// live/peak count bytes held by tensors; allocations/deallocations count cudaMalloc/cudaFree.
#pragma once

#include <cstddef>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "kernels/tensor.h"

namespace ablate::kernels::cuda {

class CudaAllocator final : public Allocator {
 public:
  void* allocate(std::size_t bytes) override;
  void deallocate(void* ptr, std::size_t bytes) override;
  AllocatorStats stats() const override;
  void reset_peak() override;
  Device device() const override { return Device::cuda; }
  std::int64_t cached_bytes() const;
  void release_cached();  // cudaFree every cached block

 private:
  static std::size_t rounded(std::size_t bytes);  // blocks are multiples of 512 bytes
  mutable std::mutex mutex_;
  AllocatorStats stats_;
  std::int64_t cached_bytes_ = 0;
  std::unordered_map<std::size_t, std::vector<void*>> free_blocks_;
};

// The process-wide device allocator; never destroyed, so tensors may outlive the backend.
CudaAllocator& cuda_allocator();

}  // namespace ablate::kernels::cuda
