// Run snapshots and the stop signals (see run_snapshot.h).
#include "bench/run/run_snapshot.h"

#include <unistd.h>

#include <atomic>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "bench/run/text_format.h"

namespace ablate::bench::run {

namespace {

std::atomic<int> g_stop_signal{0};

void on_stop_signal(int sig) {
  if (g_stop_signal.exchange(sig) != 0) _exit(128 + sig);  // the second signal: stop now
}

std::string optional_text(const std::optional<double>& v) { return v ? exact(*v) : "-"; }

std::optional<double> optional_value(const std::string& text) {
  if (text == "-") return std::nullopt;
  return std::stod(text);
}

}  // namespace

std::string exact(double v) {
  char buf[40];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);  // the shortest text that reads back as v
  return std::string(buf, r.ptr);
}

std::string snapshot_fingerprint(const RunConfig& c) {
  std::ostringstream s;
  s << "framework " << c.framework << "\ndataset " << c.dataset << "\nmodel " << c.model << "\nstrategy "
    << c.strategy << "\nbackend " << c.backend.name << "\nprecision " << kernels::dtype_name(c.precision)
    << "\nbatch " << c.batch
    << "\nseed " << c.seed << "\noptimizer " << c.optimizer.type << "\nbase_lr " << exact(c.optimizer.lr.base_lr)
    << "\nlr_policy " << c.optimizer.lr.policy << "\nmomentum " << exact(c.optimizer.momentum) << "\nweight_decay "
    << exact(c.optimizer.weight_decay) << "\ntransform " << c.transform << "\nshuffle " << (c.shuffle ? "true" : "false")
    << "\nvalidation_count " << c.validation_count << "\nweight_average_decay " << exact(c.switches.weight_average_decay)
    << "\n";
  if (c.no_random) s << "no_random true\n";  // only when on: snapshots of earlier runs stay valid
  return s.str();
}

void check_fingerprint(const std::string& saved, const RunConfig& config, const std::string& snapshot) {
  auto parse = [](const std::string& text) {
    std::map<std::string, std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
      const auto space = line.find(' ');
      std::string value = space == std::string::npos ? "" : line.substr(space + 1);
      // A number as its shortest exact form, whichever way it was written (snapshots before the
      // shortest form wrote 0.05 as 0.050000000000000003): equal values compare equal.
      double number = 0;
      const auto r = std::from_chars(value.data(), value.data() + value.size(), number);
      if (!value.empty() && r.ec == std::errc() && r.ptr == value.data() + value.size()) value = exact(number);
      out[line.substr(0, space)] = value;
    }
    return out;
  };
  const auto was = parse(saved), now = parse(snapshot_fingerprint(config));
  std::string differences;
  for (const auto& [key, value] : now) {
    auto it = was.find(key);
    const std::string before = it == was.end() ? "(absent)" : it->second;
    if (before != value) differences += (differences.empty() ? "" : ", ") + key + " " + before + " there, " + value + " here";
  }
  if (!differences.empty())
    throw std::invalid_argument("snapshot " + snapshot + " is of another configuration: " + differences);
}

std::string encode_curve(const std::vector<CurvePoint>& curve) {
  std::string out;
  for (const CurvePoint& p : curve)
    out += std::to_string(p.iteration) + " " + exact(p.elapsed_s) + " " + exact(p.loss) + " " +
           optional_text(p.test_accuracy) + " " + optional_text(p.validation_error) + " " +
           optional_text(p.train_accuracy) + "\n";
  return out;
}

std::vector<CurvePoint> decode_curve(const std::string& text, const std::string& snapshot) {
  std::vector<CurvePoint> curve;
  std::istringstream in(text);
  int line_number = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    std::istringstream fields(line);
    std::string iteration, elapsed, loss, test, validation, train;
    if (!(fields >> iteration >> elapsed >> loss >> test >> validation >> train))
      throw std::invalid_argument("snapshot " + snapshot + ": curve line " + std::to_string(line_number) + " is malformed");
    try {
      curve.push_back({std::stoll(iteration), std::stod(elapsed), std::stod(loss), optional_value(test),
                       optional_value(validation), optional_value(train)});
    } catch (const std::exception&) {
      throw std::invalid_argument("snapshot " + snapshot + ": curve line " + std::to_string(line_number) +
                                  " holds a bad number: '" + line + "'");
    }
  }
  return curve;
}

double meta_double(const std::map<std::string, std::string>& meta, const std::string& key, const std::string& snapshot) {
  auto it = meta.find(key);
  if (it == meta.end()) throw std::invalid_argument("snapshot " + snapshot + " has no '" + key + "'");
  try {
    std::size_t used = 0;
    const double v = std::stod(it->second, &used);
    if (used == it->second.size()) return v;
  } catch (const std::exception&) {
  }
  throw std::invalid_argument("snapshot " + snapshot + ": '" + key + "' is '" + it->second + "', not a number");
}

std::int64_t meta_int(const std::map<std::string, std::string>& meta, const std::string& key, const std::string& snapshot) {
  const double v = meta_double(meta, key, snapshot);
  if (v != static_cast<double>(static_cast<std::int64_t>(v)))
    throw std::invalid_argument("snapshot " + snapshot + ": '" + key + "' is " + number(v) + ", not a count");
  return static_cast<std::int64_t>(v);
}

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

int stop_signal() { return g_stop_signal.load(); }
void clear_stop_signal() { g_stop_signal.store(0); }

}  // namespace ablate::bench::run
