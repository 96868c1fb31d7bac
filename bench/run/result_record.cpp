// Serialisation of run results to JSON lines, and their atomic append.
#include "bench/run/result_record.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "bench/run/json_writer.h"

namespace ablate::bench::run {

namespace {

void write_config(JsonWriter& w, const RunConfig& c) {
  w.key("config").begin_object();
  w.field("framework", c.framework).field("preset", c.preset).field("dataset", c.dataset);
  w.field("data_dir", c.data_dir).field("model", c.model).field("strategy", strategy_name(c.strategy));
  w.field("backend", c.backend.name).field("threads", c.backend.threads);
  w.field("precision", kernels::dtype_name(c.precision));
  w.key("optimizer").begin_object();
  w.field("type", c.optimizer.type).field("base_lr", c.optimizer.lr.base_lr);
  w.field("lr_policy", c.optimizer.lr.policy).field("gamma", c.optimizer.lr.gamma);
  w.field("power", c.optimizer.lr.power).field("stepsize", c.optimizer.lr.stepsize);
  w.field("stepvalues", c.optimizer.lr.stepvalues).field("momentum", c.optimizer.momentum);
  w.field("weight_decay", c.optimizer.weight_decay).field("dampening", c.optimizer.dampening);
  w.field("beta1", c.optimizer.beta1).field("beta2", c.optimizer.beta2).field("epsilon", c.optimizer.epsilon);
  w.end_object();
  w.field("batch", c.batch).field("iterations", c.iterations).field("epochs", c.epochs);
  w.field("test_interval", c.test_interval).field("test_batch", c.test_batch);
  w.field("test_iterations", c.test_iterations).field("transform", c.transform);
  w.field("length_scale", c.length_scale).field("test_interval_epochs", c.test_interval_epochs);
  w.field("test_transform", c.test_transform);
  w.field("shuffle", c.shuffle).field("seed", static_cast<std::int64_t>(c.seed));
  w.field("validation_count", c.validation_count).field("validation_interval", c.validation_interval);
  w.field("patience", c.patience).field("patience_increase", c.patience_increase);
  w.field("improvement_threshold", c.improvement_threshold);
  w.field("train_accuracy_interval", c.train_accuracy_interval);
  w.key("target_accuracy");
  if (c.target_accuracy > 0) w.value(c.target_accuracy);
  else w.null();
  const StrategySwitches& s = c.switches;
  w.field("timing", timing_name(c.timing)).field("weight_average_decay", s.weight_average_decay);
  w.field("caching_allocator", s.caching_allocator).field("per_sample", s.per_sample);
  w.field("passes", s.passes).field("executor", executor_name(s.executor)).field("inter_op_threads", s.inter_op_threads);
  w.end_object();
}

void optional_number(JsonWriter& w, const std::string& k, bool present, double v) {
  w.key(k);
  if (present) w.value(v);
  else w.null();
}

void write_timings(JsonWriter& w, const RunMetrics& m) {
  w.key("timings").begin_object();
  w.key("uniform").begin_object().field("train_time_s", m.uniform.train_s).field("test_time_s", m.uniform.test_s);
  w.end_object();
  w.key("framework");
  if (m.has_framework_timing) {
    w.begin_object().field("train_time_s", m.framework.train_s).field("test_time_s", m.framework.test_s);
    w.end_object();
  } else {
    w.null();
  }
  w.end_object();
  const TimingSegments& s = m.segments;
  w.key("segments").begin_object();
  w.field("train_s", s.train_s).field("batch_eval_s", s.batch_eval_s).field("validation_s", s.validation_s);
  w.field("protocol_test_s", s.protocol_test_s).field("protocol_tests", s.protocol_tests);
  w.field("loop_wall_s", s.loop_wall_s).field("final_test_s", s.final_test_s);
  w.field("final_test_in_loop", s.final_test_in_loop);
  w.end_object();
}

void write_time_to_accuracy(JsonWriter& w, const TimeToAccuracy& t) {
  w.key("time_to_accuracy").begin_object();
  optional_number(w, "target", t.target > 0, t.target);
  w.key("iteration");
  if (t.reached) w.value(t.iteration);
  else w.null();
  optional_number(w, "train_time_s", t.reached, t.train_s);
  optional_number(w, "framework_train_time_s", t.reached, t.framework_train_s);
  optional_number(w, "accuracy", t.reached, t.accuracy);
  w.end_object();
}

void write_early_stopping(JsonWriter& w, const std::optional<EarlyStoppingResult>& e) {
  w.key("early_stopping");
  if (!e) {
    w.null();
    return;
  }
  w.begin_object();
  w.field("best_validation_error", e->best_validation_error).field("best_iteration", e->best_iteration);
  optional_number(w, "test_accuracy_at_best", e->test_accuracy_at_best.has_value(), e->test_accuracy_at_best.value_or(0));
  w.field("stopped_early", e->stopped_early).field("patience", e->patience).field("validations", e->validations);
  w.end_object();
}

}  // namespace

std::string to_json_line(const RunResult& r) {
  JsonWriter w;
  w.begin_object();
  w.field("status", r.status);
  if (!r.error.empty()) w.field("error", r.error);
  write_config(w, r.config);
  w.key("resolved").begin_object();
  for (const auto& [k, v] : r.resolved) w.field(k, v);
  w.end_object();
  w.key("engine").begin_object();
  w.key("counters").begin_object();
  for (const auto& [k, v] : r.engine.counters) {
    // Counters are mostly counts and bytes: written whole when they are whole.
    if (v == std::floor(v) && std::fabs(v) < 9.0e15) w.field(k, static_cast<std::int64_t>(v));
    else w.field(k, v);
  }
  w.end_object();
  w.key("settings").begin_object();
  for (const auto& [k, v] : r.engine.settings) w.field(k, v);
  w.end_object();
  w.end_object();
  w.key("environment").begin_object();
  for (const auto& [k, v] : r.environment.values) w.field(k, v);
  w.end_object();
  const auto& m = r.metrics;
  w.key("metrics").begin_object();
  w.field("timing", timing_name(m.timing));
  w.field("train_time_s", m.train_time_s).field("test_time_s", m.test_time_s);
  w.field("test_time_total_s", m.test_time_total_s).field("test_passes", m.test_passes);
  write_timings(w, m);
  write_time_to_accuracy(w, m.time_to_accuracy);
  write_early_stopping(w, m.early_stopping);
  w.field("accuracy", m.accuracy);
  w.field("test_loss", m.test_loss).field("images_per_s", m.images_per_s);
  w.field("iterations_done", m.iterations_done).field("peak_rss_bytes", m.peak_rss_bytes);
  if (m.peak_device_bytes >= 0) w.field("peak_device_bytes", m.peak_device_bytes);
  w.field("cpu_util", m.cpu_util).field("peak_tensor_bytes", m.peak_tensor_bytes);
  w.field("tensor_allocations", m.tensor_allocations);
  w.field("model_flops_per_step", m.model_flops_per_step).field("achieved_flops", m.achieved_flops);
  w.field("peak_flops", m.peak_flops).field("mfu", m.mfu);
  w.field("memory_estimate_bytes", m.memory_estimate_bytes);
  w.end_object();
  if (!r.profile.empty()) {
    w.key("profile").begin_array();
    for (const auto& op : r.profile)
      w.begin_object().field("op", op.name).field("calls", op.calls).field("seconds", op.seconds).field("flops", op.flops).end_object();
    w.end_array();
    w.field("profile_step_coverage", r.profile_step_coverage);
  }
  w.key("curve").begin_array();
  for (const auto& p : r.curve) {
    w.begin_object().field("iteration", p.iteration).field("elapsed_s", p.elapsed_s).field("loss", p.loss);
    if (p.test_accuracy) w.field("test_accuracy", *p.test_accuracy);
    if (p.validation_error) w.field("validation_error", *p.validation_error);
    if (p.train_accuracy) w.field("train_accuracy", *p.train_accuracy);
    w.end_object();
  }
  w.end_array();
  w.key("resources").begin_array();
  for (const auto& s : r.resources) {
    w.begin_object().field("elapsed_s", s.elapsed_s).field("cpu_util", s.cpu_util);
    w.field("rss_bytes", s.rss_bytes).field("threads", s.threads);
    if (s.device_bytes >= 0) w.field("device_bytes", s.device_bytes);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return w.str();
}

namespace {
int open_append(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("results file " + path + ": cannot open for appending: " + std::strerror(errno));
  return fd;
}
}  // namespace

void check_writable(const std::string& path) { ::close(open_append(path)); }

void append_record(const std::string& path, const std::string& line) {
  int fd = open_append(path);
  std::string data = line + "\n";
  if (::flock(fd, LOCK_EX) != 0) {
    ::close(fd);
    throw std::runtime_error("results file " + path + ": cannot lock: " + std::strerror(errno));
  }
  off_t before = ::lseek(fd, 0, SEEK_END);
  ssize_t written = ::write(fd, data.data(), data.size());
  int err = errno;
  if (written != static_cast<ssize_t>(data.size()) && before >= 0) {
    if (::ftruncate(fd, before) != 0) {  // take back a partial line (a full disk)
    }
  }
  ::fsync(fd);
  ::flock(fd, LOCK_UN);
  ::close(fd);
  if (written != static_cast<ssize_t>(data.size()))
    throw std::runtime_error("results file " + path + ": short write (" + std::strerror(err) + ")");
}

}  // namespace ablate::bench::run
