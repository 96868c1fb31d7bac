// Running and resuming a designed experiment (design_runner.h).
#include "bench/experiments/design_runner.h"

#include <cstdio>
#include <set>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "bench/experiments/child_process.h"
#include "bench/experiments/sweep_runner.h"
#include "bench/experiments/validation_cap.h"
#include "bench/run/result_record.h"
#include "bench/run/results_reader.h"
#include "bench/run/run_config.h"
#include "bench/run/run_configuration.h"

namespace ablate::bench::experiments {

namespace {

bool succeeded(const nlohmann::json& record) {
  const std::string status = run::text_of(run::field(record, "status"));
  return status == "completed" || status == "diverged";
}

bool superseded(const nlohmann::json& record) {
  const nlohmann::json& flag = run::field(run::field(record, "design"), "superseded");
  return flag.is_boolean() && flag.get<bool>();
}

// The identities of the runs `out` holds a successful record of.
std::set<std::string> done_runs(const std::string& out, const std::string& key) {
  const run::ResultsFile existing = read_to_resume(out);
  std::set<std::string> done;
  for (const auto& r : existing.records) {
    const nlohmann::json& d = run::field(r, "design");
    if (!d.is_object() || run::text_of(run::field(d, "key")) != key || !succeeded(r) || superseded(r)) continue;
    std::map<std::string, std::string> cell;
    if (d["cell"].is_object())
      for (const auto& [k, v] : d["cell"].items()) cell[k] = run::text_of(v);
    done.insert(design_run_identity(key, point_text(cell), static_cast<int>(run::number_of(run::field(d, "repeat"), -1))));
  }
  return done;
}

}  // namespace

bool record_disturbed(const nlohmann::json& record) {
  const nlohmann::json& flag = run::field(run::field(run::field(record, "metrics"), "disturbance"), "disturbed");
  return flag.is_boolean() && flag.get<bool>();
}

DesignTotals run_design(const DesignSpec& spec, const DesignPlan& plan, const std::string& out, const DesignRunner& runner,
                        bool print) {
  const std::string key = design_key(spec);
  const std::set<std::string> done = done_runs(out, key);
  const std::vector<PlannedDesignRun> order = design_run_order(spec, plan);
  DesignTotals totals;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const DesignCell& cell = plan.cells[order[i].cell];
    const std::string text = cell_text(cell);
    if (done.count(design_run_identity(key, text, order[i].repeat))) {
      ++totals.skipped;
      continue;
    }
    if (print) {
      std::printf("[%zu/%zu] %s repeat %d ... ", i + 1, order.size(), text.c_str(), order[i].repeat + 1);
      std::fflush(stdout);
    }
    for (int attempt = 0;; ++attempt) {
      nlohmann::ordered_json record;
      try {
        record = nlohmann::ordered_json::parse(runner(cell_args(spec, cell)));
        if (!record.is_object()) throw std::runtime_error("the run's record is not a JSON object");
      } catch (const std::exception& e) {
        record = nlohmann::ordered_json::object();
        record["status"] = "failed";
        record["error"] = e.what();
      }
      const std::string status = record.value("status", std::string("failed"));
      const bool ok = status == "completed" || status == "diverged";
      const bool disturbed = ok && record_disturbed(nlohmann::json::parse(record.dump()));
      const bool again = disturbed && attempt < spec.rerun_disturbed;
      nlohmann::ordered_json design = {{"key", key}, {"cell", nlohmann::ordered_json(cell.values)}};
      design["repeat"] = order[i].repeat;
      design["run"] = i;
      if (disturbed) design["disturbed"] = true;
      if (again) design["superseded"] = true;
      record["design"] = design;
      run::append_record(out, record.dump());
      if (print) {
        const auto& m = record.contains("metrics") ? record["metrics"] : nlohmann::ordered_json::object();
        if (ok)
          std::printf("%s: training %.3f s, %.0f images/s, accuracy %.4f%s\n", status.c_str(), m.value("train_time_s", 0.0),
                      m.value("images_per_s", 0.0), m.value("accuracy", 0.0),
                      again ? "; DISTURBED by other processes: running it again ... "
                            : disturbed ? "; DISTURBED by other processes (kept: no re-run left)" : "");
        else
          std::printf("%s: %s\n", status.c_str(), record.value("error", std::string("(no error given)")).c_str());
        std::fflush(stdout);
      }
      if (again) {
        ++totals.rerun;
        continue;
      }
      totals.runs += ok;
      totals.failed += !ok;
      totals.disturbed += disturbed;
      break;
    }
  }
  return totals;
}

DesignRunner child_process_runner(const DesignSpec& spec, bool verbose) {
  const std::int64_t max_iterations = spec.max_iterations;
  return [max_iterations, verbose](const run::Flags& args) {
    run::RunConfig config = run::resolve_run_config(args);  // throws: flags that do not resolve together
    config.quiet = !verbose;
    config.out.clear();
    ChildOutcome o = run_in_child([&] {
      run::RunHooks hooks;
      std::string note;
      hooks.fit_to_data = [&](run::RunConfig& c, const datasets::TrainTest& data) {
        c.validation_count = capped_validation(c.validation_count, data.train.count(), note);
        cap_length(c, data.train.count() - c.validation_count, max_iterations, note);
      };
      hooks.annotate = [&](nlohmann::ordered_json& record) {
        if (!note.empty()) record["design_note"] = note;
      };
      const run::RunOutcome done = run::run_configuration(config, hooks);
      if (done.result.status != "completed" && done.result.status != "diverged") {
        auto r = nlohmann::ordered_json::parse(done.record);
        r["status"] = "failed";
        r["error"] = done.result.error.empty() ? done.result.status : done.result.error;
        return r.dump();
      }
      return done.record;
    });
    if (!o.ok) throw std::runtime_error(o.error);
    return o.text;
  };
}

}  // namespace ablate::bench::experiments
