// The result record of one run, appended as one JSON line to a results file:
//   config       every factor as resolved
//   resolved     what was applied: strategy, backend and its version, threads, the strategy's
//                switches (caching allocator, per-sample, disabled passes, executor, ...)
//   engine       the engine's own report: counters (allocator hits, planned bytes) and settings
//   environment  machine, libraries, threads, BLAS variables, compiler, git revision
//   metrics      train_time_s and test_time_s under the printed `timing`, both timings under
//                `timings`, the timed parts under `segments`, accuracy (fraction), images_per_s,
//                time_to_accuracy, early_stopping, peak_rss_bytes, the steps' page faults,
//                cpu_util, allocator counters,
//                disturbance (others' cores and steal while training, and whether above the threshold)
//   curve        points {iteration, elapsed_s, loss[, test_accuracy, validation_error, train_accuracy]}
//   profile      per-op calls, seconds and FLOPs (with --profile FILE, whose trace has every span)
//   status       "completed", "diverged" or "interrupted" (with the error)
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "bench/run/environment.h"
#include "bench/run/resource_monitor.h"
#include "bench/run/run_config.h"
#include "bench/run/run_timing.h"
#include "graph/engine.h"

namespace ablate::bench::run {

struct CurvePoint {
  std::int64_t iteration = 0;  // iterations completed
  double elapsed_s = 0;        // training time so far (test passes excluded)
  double loss = 0;             // training loss of that iteration
  std::optional<double> test_accuracy;
  std::optional<double> validation_error;  // 1 - validation accuracy
  std::optional<double> train_accuracy;    // of the batch about to be trained (TF MNIST)
};

// Validation and Theano's early stopping; present when validation passes ran.
struct EarlyStoppingResult {
  double best_validation_error = 0;
  std::int64_t best_iteration = 0;             // iterations done at the best validation
  std::optional<double> test_accuracy_at_best; // the test pass at the best (early stopping on)
  bool stopped_early = false;
  double patience = 0;                         // at the end
  std::int64_t validations = 0;
};

struct RunMetrics {
  Timing timing = Timing::uniform;  // which figures train_time_s and test_time_s hold
  double train_time_s = 0, test_time_s = 0;
  double test_time_total_s = 0;    // every test pass
  TimingFigures uniform, framework;
  bool has_framework_timing = false;
  TimingSegments segments;
  std::int64_t test_passes = 0;
  TimeToAccuracy time_to_accuracy;
  std::optional<EarlyStoppingResult> early_stopping;
  double accuracy = 0, test_loss = 0;
  double images_per_s = 0;
  std::int64_t iterations_done = 0;
  std::int64_t peak_rss_bytes = 0;
  // The process's memory on transparent huge pages at the end of training (AnonHugePages; -1: unreadable).
  std::int64_t huge_page_bytes = -1;
  // Page faults of the timed steps (batch fetch and train_step; page_faults.h): minor faults
  // in all, in the first step, and per step after the first (the steady state); major in all.
  std::int64_t minor_faults = 0, minor_faults_first_step = 0, major_faults = 0;
  double minor_faults_per_step = 0;
  double median_minor_faults_per_step = 0;  // the steady state (page_faults.h)
  std::int64_t peak_device_bytes = -1;  // GPU memory (the CUDA backend's allocator); -1: no device
  double cpu_util = 0;
  std::int64_t peak_tensor_bytes = 0, tensor_allocations = 0;
  // Model FLOP utilisation: model FLOPs per step (3 x forward of the convolutions and fully
  // connected layers, models/flops.h) x steps / training time / the FMA probe's peak at the
  // run's thread count, measured just before training (kernels/peak_flops.h).
  double model_flops_per_step = 0, achieved_flops = 0, peak_flops = 0, mfu = 0;
  double memory_estimate_bytes = 0;  // models/memory_estimate.h, checked before training
  // What other processes and the hypervisor took while training ran, and the share of
  // a core above which the run counts as disturbed (--disturbed-above).
  Disturbance disturbance;
  double disturbed_above = kDefaultDisturbedAbove;
};

// Per-op totals of a --profile run: calls, seconds and FLOPs of each Backend op.
struct ProfileOp {
  std::string name;
  std::int64_t calls = 0;
  double seconds = 0, flops = 0;
};

struct RunResult {
  RunConfig config;
  Environment environment;
  std::map<std::string, std::string> resolved;  // backend version, strategy, threads as applied
  graph::EngineReport engine;
  RunMetrics metrics;
  std::vector<CurvePoint> curve;
  std::vector<ResourceSample> resources;
  std::vector<ProfileOp> profile;  // empty unless --profile
  // --profile: median over the training steps of the share of a step's time that the spans
  // inside it (ops, batch fetch, test passes) cover; the rest is unprofiled engine time.
  double profile_step_coverage = 0;
  std::string status = "completed";
  std::string error;
};

// The record as a JSON object, its members in the order above (nlohmann::ordered_json), numbers
// that round-trip exactly, a number that is not finite as null.
nlohmann::ordered_json to_json(const RunResult& result);
// One line of JSON: the object without line breaks; bytes that are not UTF-8 (a path or an error
// message quoting a file) become U+FFFD, so a record is always written.
std::string json_line(const nlohmann::ordered_json& record);
std::string to_json_line(const RunResult& result);  // json_line(to_json(result))

// Appends one line to `path` atomically: one write(2) on an O_APPEND descriptor under an
// exclusive flock, then fsync, so concurrent writers never interleave and a crash never
// leaves half a line. Throws naming the file on failure.
void append_record(const std::string& path, const std::string& line);
// Checks before a long run that `path` can be appended to (creates it if absent).
void check_writable(const std::string& path);

}  // namespace ablate::bench::run
