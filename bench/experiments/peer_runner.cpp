// The PyTorch side of `ablate compare --with-peers`: data files, arguments, runs, parsing.
#include "bench/experiments/peer_runner.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "bench/experiments/child_process.h"
#include "bench/experiments/peer_process.h"
#include "bench/experiments/validation_cap.h"
#include "bench/experiments/window_rates.h"
#include "bench/run/text_format.h"
#include "datasets/dataset_registry.h"
#include "datasets/idx_writer.h"

namespace ablate::bench::experiments {

namespace {

constexpr int kNotComparableExit = 3;  // pytorch_train.py's NOT_COMPARABLE_EXIT

std::string tail_of(const std::string& text, std::size_t max_chars) {
  std::string t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  if (t.size() > max_chars) t = "..." + t.substr(t.size() - max_chars);
  return t;
}

std::string last_line_starting(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  std::string found;
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0) found = line;
  return found;
}

}  // namespace

PeerMeasure parse_peer_output(const std::string& output, int exit_code, const std::string& who) {
  PeerMeasure m;
  const std::string not_comparable = last_line_starting(output, "peer_not_comparable:");
  if (exit_code == kNotComparableExit && !not_comparable.empty()) {
    m.state = "not comparable";
    m.reason = not_comparable.substr(not_comparable.find(':') + 1);
    m.reason.erase(0, m.reason.find_first_not_of(' '));
    return m;
  }
  const std::string line = last_line_starting(output, "peer_result ");
  if (exit_code != 0 || line.empty()) {
    m.reason = who + " exited with status " + std::to_string(exit_code) +
               (line.empty() ? " without a peer_result line" : "") + ": " + tail_of(output, 400);
    return m;
  }
  std::map<std::string, std::string> v;
  std::istringstream in(line.substr(12));
  for (std::string kv; in >> kv;) {
    auto eq = kv.find('=');
    if (eq == std::string::npos) continue;
    if (m.framework.empty()) {  // the first pair: <framework>=<version>
      m.framework = kv.substr(0, eq);
      m.version = kv.substr(eq + 1);
    }
    v[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const char* key : {"images_per_s", "accuracy", "peak_rss_bytes", "threads"})
    if (!v.count(key)) {
      m.reason = who + "'s peer_result line has no " + key + ": " + line;
      return m;
    }
  try {
    m.images_per_s = std::stod(v["images_per_s"]);
    m.accuracy = std::stod(v["accuracy"]);
    m.peak_rss_bytes = std::stoll(v["peak_rss_bytes"]);
    m.threads = std::stoi(v["threads"]);
    m.iterations = v.count("iterations") ? std::stoll(v["iterations"]) : 0;
    if (v.count("cpu_util")) m.cpu_util = std::stod(v["cpu_util"]);
    if (v.count("blas")) m.blas = v["blas"];
    if (v.count("onednn")) m.onednn = v["onednn"];
    if (v.count("window_images_per_s"))
      for (const std::string& rate : run::split_list(v["window_images_per_s"], true)) {
        m.window_images_per_s.push_back(std::stod(rate));
        if (!(m.window_images_per_s.back() > 0) || !std::isfinite(m.window_images_per_s.back())) {
          m.window_images_per_s.clear();
          m.reason = who + "'s peer_result line has a window rate that is not a positive number (" + rate + "): " + line;
          return m;
        }
      }
  } catch (const std::exception&) {
    m.reason = who + "'s peer_result line has a malformed number: " + line;
    return m;
  }
  m.precision = v["precision"];
  m.state = "completed";
  return m;
}

std::map<std::int64_t, double> parse_peer_losses(const std::string& output) {
  std::map<std::int64_t, double> losses;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("peer_loss ", 0) != 0) continue;
    std::istringstream fields(line.substr(10));
    std::string step, loss;
    if (!(fields >> step >> loss)) continue;
    try {
      losses[std::stoll(step)] = std::stod(loss);  // "nan" and "inf" too: a diverged step
    } catch (const std::exception&) {
    }
  }
  return losses;
}

PeerOptions peer_options(const run::Flags& args) {
  PeerOptions o;
  o.python = peer_python(args.get("peer-python", ""));
  o.script = args.get("peer-script", default_peer_script());
  o.as_installed = args.has("peer-as-installed");
  if (args.has("peer-threads")) {
    o.threads.clear();
    for (const std::string& item : run::split_list(args.get("peer-threads"))) {
      std::int64_t n = run::parse_int(item, "--peer-threads");
      if (n < 1)
        throw std::invalid_argument("--peer-threads " + args.get("peer-threads") + ": '" + item +
                                    "' is not a positive thread count; expected a list like 1,2");
      o.threads.push_back(static_cast<int>(n));
    }
    if (o.threads.empty())
      throw std::invalid_argument("--peer-threads '': expected a comma-separated list of thread counts, like 1,2");
  }
  return o;
}

std::vector<std::string> peer_arguments(const run::RunConfig& c, const std::string& model_file, const std::string& data_dir,
                                        std::int64_t iterations, int threads) {
  const auto& o = c.optimizer;
  const std::string d = data_dir + "/";
  std::vector<std::string> a = {
      "--model", model_file, "--threads", std::to_string(threads), "--batch", std::to_string(c.batch),
      // Every step timed, as ablate's record times every step (first-call set-up included on
      // both sides: oneDNN's primitive creation there, PyTorch's allocator warm-up here).
      "--iterations", std::to_string(iterations), "--warmup", "0", "--seed", std::to_string(c.seed),
      "--train-images", d + "train-images.idx", "--train-labels", d + "train-labels.idx",
      "--test-images", d + "test-images.idx", "--test-labels", d + "test-labels.idx",
      "--optimizer", o.type, "--lr-policy", o.lr.policy, "--base-lr", run::number(o.lr.base_lr),
      "--gamma", run::number(o.lr.gamma), "--power", run::number(o.lr.power), "--stepsize", std::to_string(o.lr.stepsize),
      "--stepvalues", o.lr.stepvalues, "--momentum", run::number(o.momentum), "--dampening", run::number(o.dampening),
      "--weight-decay", run::number(o.weight_decay), "--transform", c.transform, "--test-batch", std::to_string(c.test_batch),
      "--test-iterations", std::to_string(c.test_iterations), "--precision", kernels::dtype_name(c.precision)};
  if (!c.test_transform.empty()) a.insert(a.end(), {"--test-transform", c.test_transform});
  if (c.shuffle) a.push_back("--shuffle");
  if (c.switches.per_sample) a.push_back("--per-sample");
  if (c.switches.weight_average_decay > 0)
    a.insert(a.end(), {"--weight-average", run::number(c.switches.weight_average_decay)});
  return a;
}

void write_peer_data(const run::RunConfig& config, const std::string& dir) {
  datasets::TrainTest data = datasets::load_dataset(config.dataset, config.data_dir, config.seed);
  std::string note;
  const std::int64_t validation = capped_validation(config.validation_count, data.train.count(), note);  // as the run
  if (validation > 0) datasets::split_tail(data.train, validation, data.train.name + "/validation");  // as prepare_run
  datasets::write_idx_images(dir + "/train-images.idx", data.train);
  datasets::write_idx_labels(dir + "/train-labels.idx", data.train);
  datasets::write_idx_images(dir + "/test-images.idx", data.test);
  datasets::write_idx_labels(dir + "/test-labels.idx", data.test);
}

std::string make_temp_dir(const std::string& prefix) {
  std::string dir_template = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (!::mkdtemp(dir_template.data())) throw std::runtime_error("cannot create a directory like " + dir_template);
  return dir_template;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

PeerDataDir::PeerDataDir(const run::RunConfig& config)
    : dir_("ablate-peer"), model_file_(model_file_for_peer(config.model, dir_.path())) {
  ChildOutcome written = run_in_child([&] {
    write_peer_data(config, dir_.path());
    return std::string();
  });
  // A throw here destroys dir_, which removes the directory.
  if (!written.ok) throw std::runtime_error("cannot write the data for the peer: " + written.error);
}

std::unique_ptr<PeerDataDir> PeerDataDir::make(const run::RunConfig& config, std::string& error) {
  try {
    return std::make_unique<PeerDataDir>(config);
  } catch (const std::exception& e) {
    error = e.what();
    return nullptr;
  }
}

AblateMeasure ablate_measure(const run::RunConfig& config, const CompareRow& row, bool& measured) {
  AblateMeasure a;
  a.backend = config.backend.name;
  a.precision = kernels::dtype_name(config.precision);
  a.threads = config.backend.options.threads;
  measured = row.measured() && row.iterations_done > 0 && row.uniform_train_s > 0;
  if (!measured) return a;
  a.iterations = row.iterations_done;
  a.images_per_s = static_cast<double>(row.iterations_done * config.batch) / row.uniform_train_s;
  a.accuracy = row.accuracy;
  a.peak_rss_bytes = row.peak_rss_bytes;
  a.window_images_per_s = window_rates(row.progress_points, config.batch);
  return a;
}

PeerComparison compare_with_peer(const run::RunConfig& config, const CompareRow& row, const PeerOptions& options) {
  PeerComparison p;
  p.framework = config.framework;
  p.model = config.model;
  p.ablate = ablate_measure(config, row, p.ablate_measured);
  if (!p.ablate_measured) {
    p.note = "no ablate run to compare with (" + row.state + (row.note.empty() ? "" : ": " + row.note) + ")";
    return p;
  }
  const std::unique_ptr<PeerDataDir> data = PeerDataDir::make(config, p.note);
  if (!data) return p;
  for (int t : options.threads) {
    PeerMeasure m;
    try {
      PeerProcessOutput out = run_peer_script(
          options.python, options.script, peer_arguments(config, data->model_file(), data->path(), row.iterations_done, t),
          options.as_installed);
      m = parse_peer_output(out.output, out.exit_code);
    } catch (const std::exception& e) {
      m.reason = e.what();
    }
    m.threads = t;
    p.peers.push_back(m);
    if (m.state == "not comparable") break;  // the recipe, not the thread count: once is enough
  }
  return p;
}

}  // namespace ablate::bench::experiments
