// TraceRecorder: timed spans (one per Backend op, per training step, per test pass) written
// in the Chrome trace-event JSON format, which Perfetto (ui.perfetto.dev) and
// chrome://tracing open: {"traceEvents": [{"name", "cat", "ph": "X", "ts", "dur", "pid",
// "tid", "args"}]} with times in microseconds since the recorder was made. Each span may
// carry the floating-point operations it did, so the summary gives GFLOP/s per op.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace ablate::kernels {

class TraceRecorder {
 public:
  struct Event {
    std::string name, category;  // "conv2d_forward", "op" | "step" | "test"
    double start_us = 0, duration_us = 0;
    double flops = 0;
    std::uint64_t thread = 0;  // a small number per recording thread
  };
  struct OpTotal {
    std::int64_t calls = 0;
    double seconds = 0, flops = 0;
  };

  TraceRecorder();
  double now_us() const;
  // Records a finished span; thread-safe.
  void add(std::string name, std::string category, double start_us, double duration_us, double flops = 0);

  // A span from construction to destruction.
  class Span {
   public:
    Span(TraceRecorder& recorder, std::string name, std::string category, double flops = 0);
    ~Span();
    Span(const Span&) = delete;
    Span& operator=(const Span&) = delete;

   private:
    TraceRecorder& recorder_;
    std::string name_, category_;
    double flops_, start_us_;
  };

  std::vector<Event> events() const;
  // Sum over the events of `category`, by name.
  std::map<std::string, OpTotal> totals(const std::string& category) const;
  // For each span of `outer` (a training step), the share of its duration covered by the
  // union of all other spans inside it (ops on any thread, the batch fetch, a test pass):
  // union length / step length, in [0, 1]. 1 - coverage is the time the trace leaves
  // unexplained (engine bookkeeping between ops). One entry per outer span, in order.
  std::vector<double> coverage(const std::string& outer = "step") const;
  // Writes the trace to `path` through a temporary file renamed into place; throws
  // std::runtime_error naming the path when it cannot be written.
  void write_chrome_trace(const std::string& path) const;

 private:
  std::chrono::steady_clock::time_point origin_;
  mutable std::mutex mutex_;
  std::vector<Event> events_;
  std::map<std::uint64_t, std::uint64_t> thread_numbers_;
};

}  // namespace ablate::kernels
