// Free lists by size class, counters, and the pass-through mode (see caching_allocator.h).
#include "graph/dynamic/caching_allocator.h"

#include <algorithm>

namespace ablate::graph::dynamic {

CachingAllocator::CachingAllocator(kernels::Allocator& upstream, bool caching)
    : upstream_(upstream), caching_(caching) {}

CachingAllocator::~CachingAllocator() { release_all(); }

std::size_t CachingAllocator::size_class(std::size_t bytes) {
  return std::max<std::size_t>(1, (bytes + kBlockGranule - 1) / kBlockGranule) * kBlockGranule;
}

void* CachingAllocator::allocate(std::size_t bytes) {
  const std::size_t size = size_class(bytes);
  const auto in_use = static_cast<std::int64_t>(size);
  std::lock_guard<std::mutex> lock(mutex_);
  void* block = nullptr;
  if (caching_) {
    auto it = free_.find(size);
    if (it != free_.end() && !it->second.empty()) {
      block = it->second.back();
      it->second.pop_back();
      counters_.cached_bytes -= in_use;
      ++counters_.hits;
    }
  }
  if (!block) {
    block = upstream_.allocate(size);
    ++counters_.misses;
  }
  counters_.in_use_bytes += in_use;
  counters_.peak_in_use_bytes = std::max(counters_.peak_in_use_bytes, counters_.in_use_bytes);
  counters_.peak_reserved_bytes =
      std::max(counters_.peak_reserved_bytes, counters_.in_use_bytes + counters_.cached_bytes);
  return block;
}

void CachingAllocator::deallocate(void* ptr, std::size_t bytes) {
  if (!ptr) return;
  const std::size_t size = size_class(bytes);
  std::lock_guard<std::mutex> lock(mutex_);
  counters_.in_use_bytes -= static_cast<std::int64_t>(size);
  if (caching_) {
    free_[size].push_back(ptr);
    counters_.cached_bytes += static_cast<std::int64_t>(size);
    return;
  }
  upstream_.deallocate(ptr, size);
  ++counters_.system_frees;
}

kernels::AllocatorStats CachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {counters_.in_use_bytes, counters_.peak_in_use_bytes, counters_.misses, counters_.system_frees};
}

void CachingAllocator::reset_peak() {
  std::lock_guard<std::mutex> lock(mutex_);
  counters_.peak_in_use_bytes = counters_.in_use_bytes;
  counters_.peak_reserved_bytes = counters_.in_use_bytes + counters_.cached_bytes;
}

CacheCounters CachingAllocator::counters() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return counters_;
}

void CachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  release_all();
}

void CachingAllocator::release_all() {
  for (auto& [size, blocks] : free_) {
    for (void* block : blocks) upstream_.deallocate(block, size);
    counters_.system_frees += static_cast<std::int64_t>(blocks.size());
    counters_.cached_bytes -= static_cast<std::int64_t>(size * blocks.size());
  }
  free_.clear();
}

}  // namespace ablate::graph::dynamic
