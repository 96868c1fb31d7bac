// The resource monitor: CPU, RSS and thread samples, and a device allocator's live bytes
// when one is watched (the CUDA backend's GPU memory; here the host allocator stands in).
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "bench/run/resource_monitor.h"

namespace ablate::bench::run {
namespace {

TEST(ResourceMonitor, SamplesAWatchedAllocatorsLiveBytes) {
  ResourceMonitor monitor(100.0);
  monitor.watch_device(&kernels::cpu_allocator());
  monitor.start();
  {
    kernels::Tensor big({4, 1024, 1024}, kernels::DType::f32);  // 16 MiB live for a while
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  const ResourceSummary summary = monitor.stop();
  const auto samples = monitor.samples();
  ASSERT_GE(samples.size(), 3u);
  EXPECT_GE(summary.peak_device_bytes, 16 << 20);
  for (const auto& s : samples) {
    EXPECT_GE(s.device_bytes, 0);
    EXPECT_GT(s.rss_bytes, 0);
    EXPECT_GE(s.threads, 1);
  }
  EXPECT_LT(samples.back().device_bytes, summary.peak_device_bytes) << "the tensor was freed before the end";
}

TEST(ResourceMonitor, WithoutADeviceNoDeviceSamples) {
  ResourceMonitor monitor(100.0);
  monitor.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  const ResourceSummary summary = monitor.stop();
  EXPECT_EQ(summary.peak_device_bytes, -1);
  for (const auto& s : monitor.samples()) EXPECT_EQ(s.device_bytes, -1);
}

}  // namespace
}  // namespace ablate::bench::run
