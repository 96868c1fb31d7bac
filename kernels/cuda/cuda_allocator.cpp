// The caching device allocator (see cuda_allocator.h).
#include "kernels/cuda/cuda_allocator.h"

#include <algorithm>

#include "kernels/cuda/cuda_check.h"

namespace ablate::kernels::cuda {

std::size_t CudaAllocator::rounded(std::size_t bytes) { return std::max<std::size_t>(512, (bytes + 511) / 512 * 512); }

void* CudaAllocator::allocate(std::size_t bytes) {
  std::size_t size = rounded(bytes);
  std::lock_guard<std::mutex> lock(mutex_);
  void* ptr = nullptr;
  auto it = free_blocks_.find(size);
  if (it != free_blocks_.end() && !it->second.empty()) {
    ptr = it->second.back();
    it->second.pop_back();
    cached_bytes_ -= std::int64_t(size);
  } else {
    cudaError_t e = cudaMalloc(&ptr, size);
    if (e == cudaErrorMemoryAllocation && cached_bytes_ > 0) {  // give the cache back, retry once
      cudaGetLastError();
      for (auto& [s, blocks] : free_blocks_)
        for (void* b : blocks) {
          cudaFree(b);
          ++stats_.deallocations;
        }
      free_blocks_.clear();
      cached_bytes_ = 0;
      e = cudaMalloc(&ptr, size);
    }
    if (e != cudaSuccess)
      throw std::runtime_error("backend 'cuda': cudaMalloc of " + std::to_string(size) + " bytes failed (" +
                               std::to_string(stats_.live_bytes) + " bytes in use): " + cudaGetErrorString(e));
    ++stats_.allocations;
  }
  stats_.live_bytes += std::int64_t(size);
  stats_.peak_bytes = std::max(stats_.peak_bytes, stats_.live_bytes);
  return ptr;
}

void CudaAllocator::deallocate(void* ptr, std::size_t bytes) {
  if (!ptr) return;
  std::size_t size = rounded(bytes);
  std::lock_guard<std::mutex> lock(mutex_);
  free_blocks_[size].push_back(ptr);
  cached_bytes_ += std::int64_t(size);
  stats_.live_bytes -= std::int64_t(size);
}

AllocatorStats CudaAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void CudaAllocator::reset_peak() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.peak_bytes = stats_.live_bytes;
}

std::int64_t CudaAllocator::cached_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cached_bytes_;
}

void CudaAllocator::release_cached() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [s, blocks] : free_blocks_)
    for (void* b : blocks) {
      ABLATE_CUDA_CHECK(cudaFree(b));
      ++stats_.deallocations;
    }
  free_blocks_.clear();
  cached_bytes_ = 0;
}

CudaAllocator& cuda_allocator() {
  static CudaAllocator* allocator = new CudaAllocator;  // leaked on purpose: outlives every tensor
  return *allocator;
}

}  // namespace ablate::kernels::cuda
