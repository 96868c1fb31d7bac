// Matching the strategies' ops and writing them side by side (see step_table.h).
#include "bench/experiments/step_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

#include <nlohmann/json.hpp>

namespace ablate::bench::experiments {
namespace {

// The shapes an op wrote: "[2, 500]", "[50, 20, 5, 5] [50]"; an update writing three tensors
// of one shape (weight, gradient, history) "[500, 800] x3".
std::string shape_text(const OpRecord& r) {
  if (r.shapes.size() > 1 && std::all_of(r.shapes.begin(), r.shapes.end(), [&](const kernels::Shape& s) { return s == r.shapes[0]; }))
    return kernels::shape_string(r.shapes[0]) + " x" + std::to_string(r.shapes.size());
  std::string s;
  for (const kernels::Shape& shape : r.shapes) s += (s.empty() ? "" : " ") + kernels::shape_string(shape);
  return s.empty() ? "-" : s;
}

// phase, layer, op, what it read and wrote, occurrence
using Key = std::tuple<std::string, std::string, std::string, std::string, int>;

// Each op's key: its phase, layer, op and the shapes it read and wrote (a convolution with
// its bias is another op than one without), and how many such ops came before it.
std::vector<Key> keys_of(const StrategyStep& step) {
  std::map<std::tuple<std::string, std::string, std::string, std::string>, int> seen;
  std::vector<Key> keys;
  for (const OpRecord& r : step.ops) {
    const std::string shapes = r.reads + " -> " + shape_text(r);
    const int k = seen[{r.phase, r.layer, r.op, shapes}]++;
    keys.emplace_back(r.phase, r.layer, r.op, shapes, k);
  }
  return keys;
}

std::string mib(std::int64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(bytes) / (1 << 20));
  return buf;
}

}  // namespace

bool StepRow::matched() const {
  return std::all_of(at.begin(), at.end(), [](const auto& i) { return i.has_value(); });
}

double StepRow::checksum_gap(const Explanation& e) const {
  std::vector<double> sums;
  for (std::size_t s = 0; s < at.size(); ++s)
    if (at[s] && e.steps[s].ops[*at[s]].has_checksum) sums.push_back(e.steps[s].ops[*at[s]].checksum);
  double gap = 0;
  for (double a : sums)
    for (double b : sums) gap = std::max(gap, std::abs(a - b) / std::max({1.0, std::abs(a), std::abs(b)}));
  return gap;
}

std::vector<StepRow> match_rows(const Explanation& explanation) {
  const std::size_t n = explanation.steps.size();
  std::vector<StepRow> rows;
  std::map<Key, std::size_t> row_of;
  for (std::size_t s = 0; s < n; ++s) {
    const std::vector<Key> keys = keys_of(explanation.steps[s]);
    std::size_t insert_at = 0;  // after the row of this strategy's previous op
    for (std::size_t i = 0; i < keys.size(); ++i) {
      auto it = row_of.find(keys[i]);
      if (it == row_of.end()) {
        StepRow row;
        std::tie(row.phase, row.layer, row.op, row.shapes, row.occurrence) = keys[i];
        row.at.assign(n, std::nullopt);
        rows.insert(rows.begin() + static_cast<std::ptrdiff_t>(insert_at), row);
        for (auto& [key, index] : row_of)
          if (index >= insert_at) ++index;
        it = row_of.emplace(keys[i], insert_at).first;
      }
      rows[it->second].at[s] = i;
      insert_at = it->second + 1;
    }
  }
  return rows;
}

std::string step_text(const Explanation& e, const std::vector<StepRow>& rows) {
  const run::RunConfig& c = e.config;
  std::string out = e.model + " (" + c.framework + " preset), batch " + std::to_string(c.batch) + ", " + c.backend.name +
                    " backend, " + kernels::dtype_name(c.precision) + ": one training step per strategy\n";
  out += "marks: '=' every strategy runs the op and their outputs agree; '!' they run it and disagree;\n"
         "       '*' not every strategy runs it. Cells: the strategy's entry (layer type, tape node, graph node)\n"
         "       and the op's time in microseconds.\n\n";
  char buf[512];
  std::snprintf(buf, sizeof buf, "  %-9s %-10s %-28s %-22s", "phase", "layer", "op", "writes");
  out += buf;
  for (const StrategyStep& s : e.steps) {
    std::snprintf(buf, sizeof buf, " | %-34s", s.strategy.c_str());
    out += buf;
  }
  out += " | checksum\n";
  for (const StepRow& row : rows) {
    const OpRecord* any = nullptr;
    for (std::size_t s = 0; s < row.at.size() && !any; ++s)
      if (row.at[s]) any = &e.steps[s].ops[*row.at[s]];
    const char mark = !row.matched() ? '*' : row.checksum_gap(e) > 1e-9 ? '!' : '=';
    // A convolution or linear layer's forward without its bias (added by a node of its own in
    // the static graph) reads an absent tensor: say so, or the two rows would look alike.
    const bool no_bias = any->reads.find("none") != std::string::npos;
    const std::string op = row.op + (no_bias ? " (no bias)" : "");
    std::snprintf(buf, sizeof buf, "%c %-9s %-10s %-28s %-22s", mark, row.phase.c_str(), row.layer.c_str(), op.c_str(),
                  shape_text(*any).c_str());
    out += buf;
    for (std::size_t s = 0; s < row.at.size(); ++s) {
      if (!row.at[s]) {
        std::snprintf(buf, sizeof buf, " | %-34s", "-");
      } else {
        const OpRecord& r = e.steps[s].ops[*row.at[s]];
        std::string entry = r.entry + (r.index >= 0 ? " #" + std::to_string(r.index) : "");
        if (entry.size() > 26) entry = entry.substr(0, 25) + "~";
        std::snprintf(buf, sizeof buf, " | %-26s %7.1f", entry.c_str(), r.duration_us);
      }
      out += buf;
    }
    if (any->has_checksum)
      std::snprintf(buf, sizeof buf, " | %.9e\n", any->checksum);
    else
      std::snprintf(buf, sizeof buf, " | -\n");
    out += buf;
  }
  out += "\nper strategy (times in ms, bytes in MiB; engine = step - ops; activations = peak minus the rest)\n";
  std::snprintf(buf, sizeof buf, "%-10s %5s %8s %8s %8s %9s %10s %9s %10s %10s %11s %8s\n", "strategy", "ops", "step",
                "ops", "engine", "peak", "parameters", "gradients", "optimizer", "workspace", "activations",
                "outside");
  out += buf;
  for (const StrategyStep& s : e.steps) {
    const MemorySplit& m = s.memory;
    std::snprintf(buf, sizeof buf, "%-10s %5zu %8.3f %8.3f %8.3f %9s %10s %9s %10s %10s %11s %8s\n", s.strategy.c_str(),
                  s.ops.size(), s.step_us() / 1000, s.op_us / 1000, s.engine_us() / 1000,
                  mib(s.peak_tensor_bytes).c_str(), mib(m.parameters).c_str(), mib(m.gradients).c_str(),
                  mib(m.optimizer_state).c_str(), mib(m.workspace).c_str(), mib(m.activations).c_str(),
                  mib(m.outside).c_str());
    out += buf;
  }
  for (const StrategyStep& s : e.steps) {
    std::snprintf(buf, sizeof buf, "loss %-10s %.12g\n", s.strategy.c_str(), s.loss);
    out += buf;
  }
  return out;
}

std::string step_json(const Explanation& e, const std::vector<StepRow>& rows) {
  using nlohmann::json;
  json doc;
  doc["model"] = e.model;
  doc["framework"] = e.config.framework;
  doc["backend"] = e.config.backend.name;
  doc["precision"] = kernels::dtype_name(e.config.precision);
  doc["batch"] = e.config.batch;
  doc["strategies"] = json::array();
  for (const StrategyStep& s : e.steps) {
    const MemorySplit& m = s.memory;
    json j = {{"strategy", s.strategy}, {"loss", s.loss}, {"step_us", s.step_us()}, {"op_us", s.op_us},
              {"engine_us", s.engine_us()}, {"peak_tensor_bytes", s.peak_tensor_bytes},
              {"memory", {{"parameters", m.parameters}, {"gradients", m.gradients},
                          {"optimizer_state", m.optimizer_state}, {"workspace", m.workspace},
                          {"activations", m.activations}, {"outside", m.outside}}}};
    j["ops"] = json::array();
    for (const OpRecord& r : s.ops) {
      json o = {{"phase", r.phase}, {"layer", r.layer}, {"entry", r.entry}, {"op", r.op}, {"reads", r.reads},
                {"shapes", r.shapes},
                {"bytes_written", r.bytes_written}, {"workspace_bytes", r.workspace_bytes},
                {"live_bytes", r.live_bytes}, {"peak_bytes", r.peak_bytes}, {"flops", r.flops},
                {"start_us", r.start_us}, {"duration_us", r.duration_us}};
      if (r.index >= 0) o["index"] = r.index;
      o["checksum"] = r.has_checksum ? json(r.checksum) : json(nullptr);
      j["ops"].push_back(std::move(o));
    }
    doc["strategies"].push_back(std::move(j));
  }
  doc["rows"] = json::array();
  for (const StepRow& row : rows) {
    json at = json::array();
    for (const auto& i : row.at) at.push_back(i ? json(*i) : json(nullptr));
    doc["rows"].push_back({{"phase", row.phase}, {"layer", row.layer}, {"op", row.op}, {"shapes", row.shapes},
                           {"occurrence", row.occurrence},
                           {"ops", at}, {"checksum_gap", row.checksum_gap(e)}});
  }
  return doc.dump(1) + "\n";
}

}  // namespace ablate::bench::experiments
