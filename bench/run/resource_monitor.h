// ResourceMonitor: a background sampler of this process's CPU utilisation, resident memory
// and thread count (the study sampled its frameworks once a second; default here 10 Hz),
// read from /proc/self. CPU utilisation is CPU seconds over wall seconds: 1.0 = one core busy.
// Also what other processes took meanwhile (cpu_disturbance.h), per sample and in all.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "bench/run/cpu_disturbance.h"
#include "kernels/tensor.h"

namespace ablate::bench::run {

struct ResourceSample {
  double elapsed_s = 0;
  double cpu_util = 0;        // over the interval since the previous sample
  std::int64_t rss_bytes = 0;
  int threads = 0;
  std::int64_t device_bytes = -1;  // GPU memory the device backend's allocator holds; -1: no device
  double others_cores = 0, steal_cores = 0;  // other processes and steal over the interval
};

struct ResourceSummary {
  double wall_s = 0, cpu_s = 0;
  double cpu_util = 0;               // cpu_s / wall_s over the monitored span
  std::int64_t peak_rss_bytes = 0;   // highest sample (and the end reading)
  std::int64_t peak_device_bytes = -1;  // highest GPU memory sample; -1: no device
  std::int64_t samples = 0;
  Disturbance disturbance;  // other processes and steal over the monitored span
};

// Process-wide readings.
double process_cpu_seconds();            // user + system
std::int64_t process_rss_bytes();        // current resident set
std::int64_t process_peak_rss_bytes();   // VmHWM, since the process started
int process_threads();
std::int64_t available_memory_bytes();    // MemAvailable of /proc/meminfo (0 if unknown)

class ResourceMonitor {
 public:
  explicit ResourceMonitor(double hz = 10.0);
  ~ResourceMonitor();
  void start();
  ResourceSummary stop();
  std::vector<ResourceSample> samples() const;
  // Also samples the live bytes of a device backend's allocator (the CUDA backend's GPU
  // memory); call before start().
  void watch_device(const kernels::Allocator* allocator) { device_ = allocator; }

 private:
  void loop();
  void take_sample();
  double hz_;
  std::atomic<bool> running_{false};
  std::thread thread_;
  mutable std::mutex mutex_;
  std::vector<ResourceSample> samples_;
  double start_wall_ = 0, start_cpu_ = 0, last_wall_ = 0, last_cpu_ = 0;
  std::int64_t peak_rss_ = 0, peak_device_ = -1;
  CpuCounters start_counters_, last_counters_;  // /proc/stat at the start and last sample
  const kernels::Allocator* device_ = nullptr;
};

}  // namespace ablate::bench::run
