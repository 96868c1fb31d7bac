// The explained step as a Chrome trace (see step_trace.h).
#include "bench/experiments/step_trace.h"

#include <nlohmann/json.hpp>

namespace ablate::bench::experiments {

std::string step_trace_json(const Explanation& e) {
  using nlohmann::json;
  json events = json::array();
  for (std::size_t s = 0; s < e.steps.size(); ++s) {
    const StrategyStep& step = e.steps[s];
    const int pid = static_cast<int>(s) + 1;
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"args", {{"name", step.strategy}}}});
    events.push_back({{"name", "process_sort_index"}, {"ph", "M"}, {"pid", pid}, {"args", {{"sort_index", pid}}}});
    events.push_back({{"name", "train_step"}, {"cat", "step"}, {"ph", "X"}, {"ts", step.start_us},
                      {"dur", step.step_us()}, {"pid", pid}, {"tid", 1}, {"args", {{"loss", step.loss}}}});
    auto counters = [&](double ts, std::int64_t live, std::int64_t peak) {
      events.push_back({{"name", "live tensor bytes"}, {"ph", "C"}, {"ts", ts}, {"pid", pid}, {"args", {{"live", live}}}});
      events.push_back({{"name", "peak tensor bytes"}, {"ph", "C"}, {"ts", ts}, {"pid", pid}, {"args", {{"peak", peak}}}});
    };
    for (const OpRecord& r : step.ops) {
      json args = {{"phase", r.phase}, {"layer", r.layer}, {"entry", r.entry}, {"flops", r.flops},
                   {"bytes_written", r.bytes_written}};
      if (r.has_checksum) args["checksum"] = r.checksum;
      events.push_back({{"name", r.op}, {"cat", "op"}, {"ph", "X"}, {"ts", r.start_us}, {"dur", r.duration_us},
                        {"pid", pid}, {"tid", 1}, {"args", std::move(args)}});
      counters(r.start_us + r.duration_us, r.live_bytes, r.peak_bytes);
    }
    const std::int64_t last_live = step.ops.empty() ? 0 : step.ops.back().live_bytes;
    counters(step.end_us, last_live, step.peak_tensor_bytes);
  }
  return json{{"displayTimeUnit", "ms"}, {"traceEvents", std::move(events)}}.dump() + "\n";
}

}  // namespace ablate::bench::experiments
