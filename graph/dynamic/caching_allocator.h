// CachingAllocator: PyTorch's caching allocator in small. A tensor's block, once freed, is not
// returned to the system but kept in a free list keyed by its size class, and the next request
// of that class takes it back; a training loop, whose tensor sizes repeat every step, therefore
// reaches the system allocator only while it warms up. Size classes are multiples of 512 bytes
// (PyTorch's kMinBlockSize); blocks are neither split nor merged.
// With caching off (EngineOptions::caching_allocator = false) every request goes to the
// upstream allocator and every release straight back, with the same counters kept, so the
// two modes can be compared number for number.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "kernels/tensor.h"

namespace ablate::graph::dynamic {

struct CacheCounters {
  std::int64_t hits = 0;            // requests served from a free list
  std::int64_t misses = 0;          // requests that went to the upstream allocator
  std::int64_t system_frees = 0;    // blocks given back to the upstream allocator
  std::int64_t in_use_bytes = 0;    // bytes of blocks held by live tensors (size classes)
  std::int64_t peak_in_use_bytes = 0;
  std::int64_t cached_bytes = 0;    // bytes of blocks waiting in the free lists
  std::int64_t peak_reserved_bytes = 0;  // the most ever held from upstream (in use + cached)
};

class CachingAllocator final : public kernels::Allocator {
 public:
  static constexpr std::size_t kBlockGranule = 512;

  // `upstream` (the backend's allocator) must outlive this allocator and every tensor made
  // from it.
  explicit CachingAllocator(kernels::Allocator& upstream, bool caching = true);
  ~CachingAllocator() override;  // gives the cached blocks back
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  void* allocate(std::size_t bytes) override;
  void deallocate(void* ptr, std::size_t bytes) override;
  // live/peak: bytes in use by tensors; allocations/deallocations: calls that reached upstream.
  kernels::AllocatorStats stats() const override;
  void reset_peak() override;
  kernels::Device device() const override { return upstream_.device(); }

  bool caching() const { return caching_; }
  CacheCounters counters() const;
  // Gives every cached block back to upstream (torch.cuda.empty_cache()).
  void empty_cache();
  // The size class of a request: a multiple of kBlockGranule, at least one granule.
  static std::size_t size_class(std::size_t bytes);

 private:
  void release_all();

  kernels::Allocator& upstream_;
  const bool caching_;
  mutable std::mutex mutex_;
  std::unordered_map<std::size_t, std::vector<void*>> free_;  // size class -> free blocks
  CacheCounters counters_;
};

}  // namespace ablate::graph::dynamic
