// Execution and resumption of sweep points (see sweep_runner.h).
#include "bench/sweep_runner.h"

#include <cstdio>
#include <set>
#include <sstream>
#include <stdexcept>

#include "bench/child_process.h"
#include "bench/json_writer.h"
#include "bench/result_record.h"
#include "bench/run_config.h"
#include "bench/training_loop.h"
#include "datasets/dataset_registry.h"
#include "graph/engine.h"

namespace ablate::bench {

namespace {

std::string identity(const std::string& label_base, const std::map<std::string, std::string>& point, int repeat) {
  return label_base + " | " + point_text(point) + " | " + std::to_string(repeat);
}

// The record's JSON line with the sweep member added before its closing brace.
std::string with_sweep(const std::string& line, const SweepSpec& spec, const SweepPoint& point, const std::string& note) {
  JsonWriter w;
  w.begin_object().field("label", spec.label).field("base", base_key(spec));
  w.key("point").begin_object();
  for (const auto& [k, v] : point.values) w.field(k, v);
  w.end_object();
  w.field("repeat", point.repeat);
  if (!note.empty()) w.field("note", note);
  w.end_object();
  if (line.empty() || line.back() != '}') throw std::logic_error("a result record that is not a JSON object");
  return line.substr(0, line.size() - 1) + ",\"sweep\":" + w.str() + "}";
}

SweepRow run_point(const SweepSpec& spec, const SweepPoint& point, const std::string& out, bool verbose) {
  SweepRow row{spec.label, point, "", "", 0, 0};
  RunConfig config;
  try {
    config = resolve_run_config(point_args(spec, point));
  } catch (const std::exception& e) {
    row.state = "failed";
    row.note = e.what();
    return row;
  }
  if (!graph::strategy_built(config.strategy)) {
    row.state = "not run";
    row.note = "the " + config.strategy + " strategy is not built yet";
    return row;
  }
  config.quiet = !verbose;
  config.out.clear();
  ChildOutcome o = run_in_child([&] {
    datasets::TrainTest data = datasets::load_dataset(config.dataset, config.data_dir, config.seed);
    std::string note;
    RunConfig c = config;
    c.validation_count = capped_validation(c.validation_count, data.train.count(), note);
    cap_length(c, data.train.count() - c.validation_count, spec.max_iterations, note);
    RunResult result = train_and_test(c, std::move(data));
    append_record(out, with_sweep(to_json_line(result), spec, point, note));
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g %.17g\n", result.metrics.accuracy, result.metrics.train_time_s);
    return result.status + "\n" + buf + note + (result.error.empty() ? "" : (note.empty() ? "" : "; ") + result.error);
  });
  if (!o.ok) {
    row.state = "failed";
    row.note = o.error;
    return row;
  }
  std::istringstream in(o.text);
  std::getline(in, row.state);
  in >> row.accuracy >> row.train_s;
  in.ignore(1);
  std::getline(in, row.note);
  return row;
}

}  // namespace

std::int64_t capped_validation(std::int64_t validation_count, std::int64_t train_count, std::string& note) {
  const std::int64_t cap = train_count / 6;
  if (validation_count <= cap) return validation_count;
  note = "validation_count capped from " + std::to_string(validation_count) + " to " + std::to_string(cap) +
         " (1/6 of the " + std::to_string(train_count) + " training images)";
  return cap;
}

void cap_length(RunConfig& config, std::int64_t train_count, std::int64_t max_iterations, std::string& note) {
  if (max_iterations <= 0) return;
  resolve_length(config, train_count);
  if (config.iterations <= max_iterations) return;
  note += (note.empty() ? "" : "; ") + std::string("length capped from ") + std::to_string(config.iterations) + " to " +
          std::to_string(max_iterations) + " iterations (--max-iterations)";
  config.iterations = max_iterations;
  config.epochs = 0;
}

std::string run_identity(const JsonValue& record) {
  const JsonValue& s = record["sweep"];
  if (s.kind != JsonValue::Kind::object) return "";
  std::map<std::string, std::string> point;
  for (const auto& [k, v] : s["point"].members) point[k] = v.str();
  return identity(s["base"].str(), point, static_cast<int>(s["repeat"].num(-1)));
}

std::string run_identity(const SweepSpec& spec, const SweepPoint& point) {
  return identity(base_key(spec), point.values, point.repeat);
}

std::vector<SweepRow> run_sweeps(const std::vector<SweepSpec>& specs, const std::string& out, bool verbose,
                                 SweepTotals& totals) {
  for (const auto& s : specs) check_spec(s);
  check_writable(out);
  ResultsFile existing = read_results(out);
  for (const auto& d : existing.damaged)
    std::printf("results file %s: line %lld is damaged and skipped (%s)\n", out.c_str(), static_cast<long long>(d.line),
                d.reason.c_str());
  if (drop_partial_last_line(out))
    std::printf("results file %s: removed its partial last line (a run cut short); that run will run again\n", out.c_str());
  std::set<std::string> done;
  for (const auto& r : existing.records) {
    std::string id = run_identity(r);
    if (!id.empty()) done.insert(id);
  }
  std::size_t total = 0;
  for (const auto& s : specs) total += expand(s).size();
  std::vector<SweepRow> rows;
  std::size_t index = 0;
  for (const auto& spec : specs) {
    for (const auto& point : expand(spec)) {
      ++index;
      std::string where = spec.label + ": " + point_text(point.values) +
                          (spec.repeats > 1 ? " repeat " + std::to_string(point.repeat) : "");
      if (done.count(run_identity(spec, point))) {
        rows.push_back({spec.label, point, "skipped", "already in " + out, 0, 0});
        ++totals.skipped;
        continue;
      }
      std::printf("[%zu/%zu] %s ... ", index, total, where.c_str());
      std::fflush(stdout);
      SweepRow row = run_point(spec, point, out, verbose);
      if (row.state == "completed" || row.state == "diverged")
        std::printf("%s: accuracy %.4f, training %.2f s%s%s\n", row.state.c_str(), row.accuracy, row.train_s,
                    row.note.empty() ? "" : "; ", row.note.c_str());
      else
        std::printf("%s: %s\n", row.state.c_str(), row.note.c_str());
      std::fflush(stdout);
      totals.runs += row.state == "completed" || row.state == "diverged";
      totals.not_run += row.state == "not run";
      totals.failed += row.state == "failed";
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

}  // namespace ablate::bench
