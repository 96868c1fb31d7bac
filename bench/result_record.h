// The result record of one run, appended as one JSON line to a results file:
//   config       every factor as resolved
//   environment  machine, libraries, threads, BLAS variables, compiler, git revision
//   metrics      train_time_s, test_time_s, accuracy (fraction), images_per_s, peak_rss_bytes,
//                cpu_util, allocator counters, ...
//   curve        points {iteration, elapsed_s, loss[, test_accuracy]}
//   status       "completed" or "diverged" (with the error)
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench/environment.h"
#include "bench/resource_monitor.h"
#include "bench/run_config.h"

namespace ablate::bench {

struct CurvePoint {
  std::int64_t iteration = 0;  // iterations completed
  double elapsed_s = 0;        // training time so far (test passes excluded)
  double loss = 0;             // training loss of that iteration
  std::optional<double> test_accuracy;
};

struct RunMetrics {
  double train_time_s = 0, test_time_s = 0, test_time_total_s = 0;
  double accuracy = 0, test_loss = 0;
  double images_per_s = 0;
  std::int64_t iterations_done = 0;
  std::int64_t peak_rss_bytes = 0;
  double cpu_util = 0;
  std::int64_t peak_tensor_bytes = 0, tensor_allocations = 0;
};

struct RunResult {
  RunConfig config;
  Environment environment;
  std::map<std::string, std::string> resolved;  // backend version, strategy, threads as applied
  RunMetrics metrics;
  std::vector<CurvePoint> curve;
  std::vector<ResourceSample> resources;
  std::string status = "completed";
  std::string error;
};

std::string to_json_line(const RunResult& result);

// Appends one line to `path` atomically: one write(2) on an O_APPEND descriptor under an
// exclusive flock, then fsync, so concurrent writers never interleave and a crash never
// leaves half a line. Throws naming the file on failure.
void append_record(const std::string& path, const std::string& line);
// Checks before a long run that `path` can be appended to (creates it if absent).
void check_writable(const std::string& path);

}  // namespace ablate::bench
