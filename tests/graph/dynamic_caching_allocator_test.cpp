// The caching allocator of the dynamic strategy: size classes of 512 bytes, freed blocks
// reused by the next request of their class, counters of hits, misses, cached and peak bytes,
// the pass-through mode, and empty_cache giving the blocks back.
#include <gtest/gtest.h>

#include "graph/dynamic/caching_allocator.h"

namespace ablate::graph::dynamic {
namespace {

// Counts what reaches it (the "system").
class CountingUpstream final : public kernels::Allocator {
 public:
  void* allocate(std::size_t bytes) override {
    ++allocations;
    live += static_cast<std::int64_t>(bytes);
    return kernels::cpu_allocator().allocate(bytes);
  }
  void deallocate(void* ptr, std::size_t bytes) override {
    ++deallocations;
    live -= static_cast<std::int64_t>(bytes);
    kernels::cpu_allocator().deallocate(ptr, bytes);
  }
  kernels::AllocatorStats stats() const override { return {live, live, allocations, deallocations}; }
  void reset_peak() override {}
  kernels::Device device() const override { return kernels::Device::cpu; }
  std::int64_t allocations = 0, deallocations = 0, live = 0;
};

TEST(DynamicCachingAllocator, SizeClassesAreMultiplesOf512Bytes) {
  EXPECT_EQ(CachingAllocator::size_class(0), 512u);
  EXPECT_EQ(CachingAllocator::size_class(1), 512u);
  EXPECT_EQ(CachingAllocator::size_class(512), 512u);
  EXPECT_EQ(CachingAllocator::size_class(513), 1024u);
  EXPECT_EQ(CachingAllocator::size_class(100000), 100352u);
}

TEST(DynamicCachingAllocator, FreedBlocksAreReusedBySizeClass) {
  CountingUpstream system;
  {
    CachingAllocator cache(system);
    void* a = cache.allocate(100);
    void* b = cache.allocate(2000);
    EXPECT_EQ(system.allocations, 2);
    cache.deallocate(a, 100);
    EXPECT_EQ(cache.counters().cached_bytes, 512);
    void* c = cache.allocate(300);  // same 512-byte class as a
    EXPECT_EQ(c, a);
    void* d = cache.allocate(600);  // another class: a miss
    EXPECT_NE(d, a);
    EXPECT_EQ(system.allocations, 3);
    const CacheCounters counters = cache.counters();
    EXPECT_EQ(counters.hits, 1);
    EXPECT_EQ(counters.misses, 3);
    EXPECT_EQ(counters.in_use_bytes, 512 + 2048 + 1024);
    EXPECT_EQ(counters.cached_bytes, 0);
    EXPECT_EQ(counters.peak_in_use_bytes, 512 + 2048 + 1024);
    cache.deallocate(b, 2000);
    cache.deallocate(c, 300);
    cache.deallocate(d, 600);
    EXPECT_EQ(system.deallocations, 0) << "the cache keeps every freed block";
    EXPECT_EQ(cache.counters().cached_bytes, 512 + 2048 + 1024);
    EXPECT_EQ(cache.counters().peak_reserved_bytes, 512 + 2048 + 1024);
    EXPECT_EQ(cache.stats().live_bytes, 0);
    EXPECT_EQ(cache.stats().allocations, 3);
    // A tensor through the cache takes a cached block.
    { kernels::Tensor t({100}, kernels::DType::f32, &cache); }
    EXPECT_EQ(cache.counters().hits, 2);
    cache.empty_cache();
    EXPECT_EQ(system.deallocations, 3);
    EXPECT_EQ(cache.counters().cached_bytes, 0);
    EXPECT_EQ(cache.counters().system_frees, 3);
    void* e = cache.allocate(10);
    cache.deallocate(e, 10);
  }
  EXPECT_EQ(system.live, 0) << "the destructor gives the cached blocks back";
  EXPECT_EQ(system.allocations, system.deallocations);
}

TEST(DynamicCachingAllocator, WithCachingOffEveryRequestReachesTheSystem) {
  CountingUpstream system;
  CachingAllocator direct(system, /*caching=*/false);
  EXPECT_FALSE(direct.caching());
  for (int i = 0; i < 3; ++i) {
    void* p = direct.allocate(1000);
    direct.deallocate(p, 1000);
  }
  EXPECT_EQ(system.allocations, 3);
  EXPECT_EQ(system.deallocations, 3);
  const CacheCounters counters = direct.counters();
  EXPECT_EQ(counters.hits, 0);
  EXPECT_EQ(counters.misses, 3);
  EXPECT_EQ(counters.system_frees, 3);
  EXPECT_EQ(counters.cached_bytes, 0);
  EXPECT_EQ(counters.peak_in_use_bytes, 1024);
}

}  // namespace
}  // namespace ablate::graph::dynamic
