// Serialisation of run results to JSON lines, and their atomic append.
#include "bench/run/result_record.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace ablate::bench::run {

namespace {

using Json = nlohmann::ordered_json;

Json number_or_null(bool present, double v) { return present ? Json(v) : Json(nullptr); }

Json config_json(const RunConfig& c) {
  const graph::OptimizerConfig& o = c.optimizer;
  const StrategySwitches& s = c.switches;
  return {
      {"framework", c.framework},
      {"preset", c.preset},
      {"dataset", c.dataset},
      {"data_dir", c.data_dir},
      {"model", c.model},
      {"strategy", c.strategy},
      {"backend", c.backend.name},
      {"threads", c.backend.options.threads},
      {"plan", c.plan},
      {"plan_threading", c.plan_threading},
      {"conv_mode", c.backend.options.conv_mode ? Json(kernels::cpu::conv_mode_name(*c.backend.options.conv_mode)) : Json()},
      {"conv_lowering", c.backend.options.conv_lowering
                            ? Json(kernels::cpu::conv_lowering_name(*c.backend.options.conv_lowering))
                            : Json()},
      {"threading", c.backend.options.threading ? Json(kernels::cpu::threading_name(*c.backend.options.threading)) : Json()},
      {"pool_gradient", c.backend.options.pool_gradient
                            ? Json(kernels::pool_gradient_name(*c.backend.options.pool_gradient))
                            : Json()},
      {"onednn_conv_layout", c.backend.options.onednn_conv_layout
                                 ? Json(kernels::onednn::conv_layout_name(*c.backend.options.onednn_conv_layout))
                                 : Json()},
      {"precision", kernels::dtype_name(c.precision)},
      {"optimizer",
       {{"type", o.type}, {"base_lr", o.lr.base_lr}, {"lr_policy", o.lr.policy}, {"gamma", o.lr.gamma},
        {"power", o.lr.power}, {"stepsize", o.lr.stepsize}, {"stepvalues", o.lr.stepvalues},
        {"warmup", o.lr.warmup}, {"max_iter", o.lr.max_iter}, {"momentum", o.momentum},
        {"weight_decay", o.weight_decay}, {"dampening", o.dampening}, {"beta1", o.beta1}, {"beta2", o.beta2},
        {"epsilon", o.epsilon}}},
      {"batch", c.batch},
      {"iterations", c.iterations},
      {"epochs", c.epochs},
      {"test_interval", c.test_interval},
      {"test_batch", c.test_batch},
      {"test_iterations", c.test_iterations},
      {"transform", c.transform},
      {"length_scale", c.length_scale},
      {"test_interval_epochs", c.test_interval_epochs},
      {"test_transform", c.test_transform},
      {"shuffle", c.shuffle},
      {"seed", c.seed},
      {"validation_count", c.validation_count},
      {"validation_interval", c.validation_interval},
      {"patience", c.patience},
      {"patience_increase", c.patience_increase},
      {"improvement_threshold", c.improvement_threshold},
      {"train_accuracy_interval", c.train_accuracy_interval},
      {"target_accuracy", number_or_null(c.target_accuracy > 0, c.target_accuracy)},
      {"timing", timing_name(c.timing)},
      {"weight_average_decay", s.weight_average_decay},
      {"blocked_layout", s.blocked_layout},
      {"caching_allocator", s.caching_allocator},
      {"malloc", malloc_policy_name(c.malloc_policy)},
      {"huge_pages", kernels::huge_pages_name(c.huge_pages)},
      {"per_sample", s.per_sample},
      {"passes", s.passes},
      {"executor", graph::executor_name(s.executor)},
      {"inter_op_threads", s.inter_op_threads},
      {"no_random", c.no_random},
      {"curve_every", c.curve_every},
      {"curve_points", c.curve_points},
  };
}

Json engine_json(const graph::EngineReport& report) {
  Json counters = Json::object(), settings = Json::object();
  for (const auto& [k, v] : report.counters) {
    // Counters are mostly counts and bytes: written whole when they are whole.
    if (v == std::floor(v) && std::fabs(v) < 9.0e15) counters[k] = static_cast<std::int64_t>(v);
    else counters[k] = v;
  }
  for (const auto& [k, v] : report.settings) settings[k] = v;
  return {{"counters", counters}, {"settings", settings}};
}

Json time_to_accuracy_json(const TimeToAccuracy& t) {
  return {{"target", number_or_null(t.target > 0, t.target)},
          {"iteration", t.reached ? Json(t.iteration) : Json(nullptr)},
          {"train_time_s", number_or_null(t.reached, t.train_s)},
          {"framework_train_time_s", number_or_null(t.reached, t.framework_train_s)},
          {"accuracy", number_or_null(t.reached, t.accuracy)}};
}

Json early_stopping_json(const std::optional<EarlyStoppingResult>& e) {
  if (!e) return nullptr;
  return {{"best_validation_error", e->best_validation_error},
          {"best_iteration", e->best_iteration},
          {"test_accuracy_at_best", number_or_null(e->test_accuracy_at_best.has_value(), e->test_accuracy_at_best.value_or(0))},
          {"stopped_early", e->stopped_early},
          {"patience", e->patience},
          {"validations", e->validations}};
}

Json metrics_json(const RunMetrics& m) {
  const TimingSegments& s = m.segments;
  auto figures = [](const TimingFigures& f) { return Json{{"train_time_s", f.train_s}, {"test_time_s", f.test_s}}; };
  Json metrics = {
      {"timing", timing_name(m.timing)},
      {"train_time_s", m.train_time_s},
      {"test_time_s", m.test_time_s},
      {"test_time_total_s", m.test_time_total_s},
      {"test_passes", m.test_passes},
      {"timings", {{"uniform", figures(m.uniform)}, {"framework", m.has_framework_timing ? figures(m.framework) : nullptr}}},
      {"segments",
       {{"train_s", s.train_s}, {"batch_eval_s", s.batch_eval_s}, {"validation_s", s.validation_s},
        {"protocol_test_s", s.protocol_test_s}, {"protocol_tests", s.protocol_tests}, {"loop_wall_s", s.loop_wall_s},
        {"final_test_s", s.final_test_s}, {"final_test_in_loop", s.final_test_in_loop}}},
      {"time_to_accuracy", time_to_accuracy_json(m.time_to_accuracy)},
      {"early_stopping", early_stopping_json(m.early_stopping)},
      {"accuracy", m.accuracy},
      {"test_loss", m.test_loss},
      {"images_per_s", m.images_per_s},
      {"iterations_done", m.iterations_done},
      {"peak_rss_bytes", m.peak_rss_bytes},
      {"huge_page_bytes", m.huge_page_bytes},
      {"minor_faults_per_step", m.minor_faults_per_step},
      {"median_minor_faults_per_step", m.median_minor_faults_per_step},
      {"minor_faults_first_step", m.minor_faults_first_step},
      {"minor_faults", m.minor_faults},
      {"major_faults", m.major_faults},
  };
  if (m.peak_device_bytes >= 0) metrics["peak_device_bytes"] = m.peak_device_bytes;
  metrics["cpu_util"] = m.cpu_util;
  metrics["peak_tensor_bytes"] = m.peak_tensor_bytes;
  metrics["tensor_allocations"] = m.tensor_allocations;
  metrics["model_flops_per_step"] = m.model_flops_per_step;
  metrics["achieved_flops"] = m.achieved_flops;
  metrics["peak_flops"] = m.peak_flops;
  metrics["mfu"] = m.mfu;
  metrics["memory_estimate_bytes"] = m.memory_estimate_bytes;
  // Others' CPU and steal while training (null when /proc/stat was unreadable).
  const Disturbance& d = m.disturbance;
  metrics["disturbance"] = {{"others_cores", number_or_null(d.known, d.others_cores)},
                            {"steal_cores", number_or_null(d.known, d.steal_cores)},
                            {"cpus", d.cpus},
                            {"disturbed_above", m.disturbed_above},
                            {"disturbed", is_disturbed(d, m.disturbed_above)}};
  return metrics;
}

Json curve_point_json(const CurvePoint& p) {
  Json j = {{"iteration", p.iteration}, {"elapsed_s", p.elapsed_s}, {"loss", p.loss}};
  if (p.test_accuracy) j["test_accuracy"] = *p.test_accuracy;
  if (p.validation_error) j["validation_error"] = *p.validation_error;
  if (p.train_accuracy) j["train_accuracy"] = *p.train_accuracy;
  return j;
}

Json resource_json(const ResourceSample& s) {
  Json j = {{"elapsed_s", s.elapsed_s}, {"cpu_util", s.cpu_util}, {"rss_bytes", s.rss_bytes}, {"threads", s.threads}};
  if (s.device_bytes >= 0) j["device_bytes"] = s.device_bytes;
  j["others_cores"] = s.others_cores;
  j["steal_cores"] = s.steal_cores;
  return j;
}

}  // namespace

Json to_json(const RunResult& r) {
  Json record = {{"status", r.status}};
  if (!r.error.empty()) record["error"] = r.error;
  record["config"] = config_json(r.config);
  record["resolved"] = Json(r.resolved);
  record["engine"] = engine_json(r.engine);
  record["environment"] = Json(r.environment.values);
  record["metrics"] = metrics_json(r.metrics);
  if (!r.profile.empty()) {
    Json ops = Json::array();
    for (const auto& op : r.profile)
      ops.push_back({{"op", op.name}, {"calls", op.calls}, {"seconds", op.seconds}, {"flops", op.flops}});
    record["profile"] = ops;
    record["profile_step_coverage"] = r.profile_step_coverage;
  }
  Json curve = Json::array(), resources = Json::array();
  for (const auto& p : r.curve) curve.push_back(curve_point_json(p));
  for (const auto& s : r.resources) resources.push_back(resource_json(s));
  record["curve"] = curve;
  record["resources"] = resources;
  return record;
}

std::string json_line(const Json& record) { return record.dump(-1, ' ', false, Json::error_handler_t::replace); }

std::string to_json_line(const RunResult& result) { return json_line(to_json(result)); }

namespace {
int open_append(const std::string& path) {
  // A results file in a folder that does not exist yet (results/run.jsonl in a fresh clone):
  // the folder is made; any failure shows in open's error below.
  std::error_code ignored;
  if (const auto parent = std::filesystem::path(path).parent_path(); !parent.empty())
    std::filesystem::create_directories(parent, ignored);
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
