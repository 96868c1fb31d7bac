// Chrome trace-event recording (see trace_recorder.h).
#include "kernels/trace_recorder.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <thread>

namespace ablate::kernels {

namespace {

std::string json_escaped(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace

TraceRecorder::TraceRecorder() : origin_(std::chrono::steady_clock::now()) {}

double TraceRecorder::now_us() const {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - origin_).count();
}

void TraceRecorder::add(std::string name, std::string category, double start_us, double duration_us, double flops) {
  const std::uint64_t id = std::hash<std::thread::id>{}(std::this_thread::get_id());
  std::lock_guard<std::mutex> lock(mutex_);
  auto [it, fresh] = thread_numbers_.try_emplace(id, thread_numbers_.size() + 1);
  (void)fresh;
  events_.push_back({std::move(name), std::move(category), start_us, duration_us, flops, it->second});
}

TraceRecorder::Span::Span(TraceRecorder& recorder, std::string name, std::string category, double flops)
    : recorder_(recorder), name_(std::move(name)), category_(std::move(category)), flops_(flops),
      start_us_(recorder.now_us()) {}

TraceRecorder::Span::~Span() {
  recorder_.add(std::move(name_), std::move(category_), start_us_, recorder_.now_us() - start_us_, flops_);
}

std::vector<TraceRecorder::Event> TraceRecorder::events() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return events_;
}

std::map<std::string, TraceRecorder::OpTotal> TraceRecorder::totals(const std::string& category) const {
  std::map<std::string, OpTotal> out;
  for (const Event& e : events()) {
    if (e.category != category) continue;
    OpTotal& t = out[e.name];
    ++t.calls;
    t.seconds += e.duration_us * 1e-6;
    t.flops += e.flops;
  }
  return out;
}

std::vector<double> TraceRecorder::coverage(const std::string& outer) const {
  const std::vector<Event> all = events();
  std::vector<std::pair<double, double>> inner;  // [start, end) of every non-outer span, by start
  for (const Event& e : all)
    if (e.category != outer) inner.emplace_back(e.start_us, e.start_us + e.duration_us);
  std::sort(inner.begin(), inner.end());
  std::vector<double> out;
  for (const Event& step : all) {
    if (step.category != outer) continue;
    const double begin = step.start_us, end = step.start_us + step.duration_us;
    double covered = 0, reach = begin;  // reach: the end of the union so far
    auto it = std::lower_bound(inner.begin(), inner.end(), std::make_pair(begin, begin));
    for (; it != inner.end() && it->first < end; ++it) {
      const double from = std::max(it->first, reach), to = std::min(it->second, end);
      if (to > from) covered += to - from;
      reach = std::max(reach, to);
    }
    out.push_back(step.duration_us > 0 ? covered / step.duration_us : 1.0);
  }
  return out;
}

void TraceRecorder::write_chrome_trace(const std::string& path) const {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    if (!out) throw std::runtime_error("trace file " + path + ": cannot be written");
    out << "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n";
    const std::vector<Event> all = events();
    char buf[160];
    for (std::size_t i = 0; i < all.size(); ++i) {
      const Event& e = all[i];
      std::snprintf(buf, sizeof buf, "\"ph\": \"X\", \"ts\": %.3f, \"dur\": %.3f, \"pid\": 1, \"tid\": %llu",
                    e.start_us, e.duration_us, static_cast<unsigned long long>(e.thread));
      out << "{\"name\": \"" << json_escaped(e.name) << "\", \"cat\": \"" << json_escaped(e.category) << "\", " << buf;
      if (e.flops > 0) {
        std::snprintf(buf, sizeof buf, ", \"args\": {\"flops\": %.0f}", e.flops);
        out << buf;
      }
      out << (i + 1 < all.size() ? "},\n" : "}\n");
    }
    out << "]}\n";
    out.flush();
    if (!out) throw std::runtime_error("trace file " + path + ": write failed (disk full?)");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw std::runtime_error("trace file " + path + ": cannot rename " + tmp + " into place");
  }
}

}  // namespace ablate::kernels
