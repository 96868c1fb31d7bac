// Serialisation of run results to JSON lines, and their atomic append.
#include "bench/result_record.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "bench/json_writer.h"

namespace ablate::bench {

namespace {

void write_config(JsonWriter& w, const RunConfig& c) {
  w.key("config").begin_object();
  w.field("framework", c.framework).field("preset", c.preset).field("dataset", c.dataset);
  w.field("data_dir", c.data_dir).field("model", c.model).field("strategy", c.strategy);
  w.field("backend", c.backend).field("threads", c.threads).field("precision", c.precision);
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
  w.field("shuffle", c.shuffle).field("seed", static_cast<std::int64_t>(c.seed));
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
  w.key("environment").begin_object();
  for (const auto& [k, v] : r.environment.values) w.field(k, v);
  w.end_object();
  const auto& m = r.metrics;
  w.key("metrics").begin_object();
  w.field("train_time_s", m.train_time_s).field("test_time_s", m.test_time_s);
  w.field("test_time_total_s", m.test_time_total_s).field("accuracy", m.accuracy);
  w.field("test_loss", m.test_loss).field("images_per_s", m.images_per_s);
  w.field("iterations_done", m.iterations_done).field("peak_rss_bytes", m.peak_rss_bytes);
  w.field("cpu_util", m.cpu_util).field("peak_tensor_bytes", m.peak_tensor_bytes);
  w.field("tensor_allocations", m.tensor_allocations);
  w.end_object();
  w.key("curve").begin_array();
  for (const auto& p : r.curve) {
    w.begin_object().field("iteration", p.iteration).field("elapsed_s", p.elapsed_s).field("loss", p.loss);
    if (p.test_accuracy) w.field("test_accuracy", *p.test_accuracy);
    w.end_object();
  }
  w.end_array();
  w.key("resources").begin_array();
  for (const auto& s : r.resources) {
    w.begin_object().field("elapsed_s", s.elapsed_s).field("cpu_util", s.cpu_util);
    w.field("rss_bytes", s.rss_bytes).field("threads", s.threads).end_object();
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

}  // namespace ablate::bench
