// Background sampler of CPU, memory and threads from /proc/self/stat and /proc/self/status.
#include "bench/run/resource_monitor.h"

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>

namespace ablate::bench::run {

namespace {

double now_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

// Fields of /proc/self/stat after the command name (which may hold spaces).
std::vector<std::string> stat_fields() {
  std::ifstream in("/proc/self/stat");
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> fields;
  auto close = all.rfind(')');
  if (close == std::string::npos) return fields;
  std::istringstream rest(all.substr(close + 2));
  std::string f;
  while (rest >> f) fields.push_back(f);
  return fields;  // fields[0] is field 3 (state)
}

// A "Key:   123 kB" field of a /proc file (status of this process, or meminfo).
std::int64_t proc_kb(const char* file, const std::string& key) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) == 0) return std::stoll(line.substr(key.size() + 1));
  }
  return 0;
}

std::int64_t status_kb(const std::string& key) { return proc_kb("/proc/self/status", key); }

}  // namespace

double process_cpu_seconds() {
  auto f = stat_fields();
  if (f.size() < 13) return 0;
  double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  return (std::stod(f[11]) + std::stod(f[12])) / ticks;  // utime (14), stime (15)
}

std::int64_t process_rss_bytes() { return status_kb("VmRSS") * 1024; }
std::int64_t process_peak_rss_bytes() { return status_kb("VmHWM") * 1024; }
int process_threads() { return static_cast<int>(status_kb("Threads")); }
std::int64_t available_memory_bytes() { return proc_kb("/proc/meminfo", "MemAvailable") * 1024; }

ResourceMonitor::ResourceMonitor(double hz) : hz_(hz > 0 ? hz : 10.0) {}

ResourceMonitor::~ResourceMonitor() {
  if (running_) stop();
}

void ResourceMonitor::start() {
  start_wall_ = last_wall_ = now_s();
  start_cpu_ = last_cpu_ = process_cpu_seconds();
  start_counters_ = last_counters_ = read_cpu_counters();  // others' CPU and steal from here
  peak_rss_ = process_rss_bytes();
  peak_device_ = -1;
  samples_.clear();
  running_ = true;
  thread_ = std::thread([this] { loop(); });
}

void ResourceMonitor::take_sample() {
  double wall = now_s(), cpu = process_cpu_seconds();
  ResourceSample s;
  s.elapsed_s = wall - start_wall_;
  s.cpu_util = wall > last_wall_ ? (cpu - last_cpu_) / (wall - last_wall_) : 0;
  s.rss_bytes = process_rss_bytes();
  s.threads = process_threads();
  if (device_) s.device_bytes = device_->stats().live_bytes;
  last_wall_ = wall;
  last_cpu_ = cpu;
  const CpuCounters counters = read_cpu_counters();  // others and steal since the last sample
  const Disturbance d = disturbance_between(last_counters_, counters);
  s.others_cores = d.others_cores;
  s.steal_cores = d.steal_cores;
  last_counters_ = counters;
  std::lock_guard<std::mutex> lock(mutex_);
  if (s.rss_bytes > peak_rss_) peak_rss_ = s.rss_bytes;
  if (s.device_bytes > peak_device_) peak_device_ = s.device_bytes;
  samples_.push_back(s);
}

void ResourceMonitor::loop() {
  auto period = std::chrono::duration<double>(1.0 / hz_);
  auto next = std::chrono::steady_clock::now();
  while (running_) {
    next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(period);
    std::this_thread::sleep_until(next);
    if (!running_) break;
    take_sample();
  }
}

ResourceSummary ResourceMonitor::stop() {
  running_ = false;
  if (thread_.joinable()) thread_.join();
  take_sample();
  ResourceSummary r;
  r.wall_s = now_s() - start_wall_;
  r.cpu_s = process_cpu_seconds() - start_cpu_;
  r.cpu_util = r.wall_s > 0 ? r.cpu_s / r.wall_s : 0;
  r.disturbance = disturbance_between(start_counters_, last_counters_);  // others and steal over the run
  std::lock_guard<std::mutex> lock(mutex_);
  r.peak_rss_bytes = peak_rss_;
  r.peak_device_bytes = peak_device_;
  r.samples = static_cast<std::int64_t>(samples_.size());
  return r;
}

std::vector<ResourceSample> ResourceMonitor::samples() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return samples_;
}

}  // namespace ablate::bench::run
