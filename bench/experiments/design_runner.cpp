// Running and resuming a designed experiment (design_runner.h).
#include "bench/experiments/design_runner.h"

#include <cstdio>
#include <set>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "bench/experiments/child_process.h"
#include "bench/experiments/sweep_runner.h"
#include "bench/experiments/validation_cap.h"
#include "bench/run/result_record.h"
#include "bench/run/results_reader.h"
#include "bench/run/run_config.h"
#include "bench/run/run_configuration.h"
#include "graph/distributed/communicator.h"
#include "graph/distributed/work_queue.h"

namespace ablate::bench::experiments {

namespace dist = graph::distributed;

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

namespace {

// One planned run's records: its attempts, a disturbed one measured again up to
// spec.rerun_disturbed times (the superseded ones marked), each with its "design" member.
// `rank` >= 0 when distributed (into the member). Never throws: a failure is a record.
std::vector<nlohmann::ordered_json> run_attempts(const DesignSpec& spec, const DesignCell& cell, const std::string& key,
                                                 int repeat, std::size_t run, int rank, const DesignRunner& runner,
                                                 const std::function<void()>& serve) {
  std::vector<nlohmann::ordered_json> records;
  for (int attempt = 0;; ++attempt) {
    nlohmann::ordered_json record;
    try {
      record = nlohmann::ordered_json::parse(runner(cell_args(spec, cell), serve));
      if (!record.is_object()) throw std::runtime_error("the run's record is not a JSON object");
    } catch (const std::exception& e) {
      record = nlohmann::ordered_json::object();
      record["status"] = "failed";
      record["error"] = e.what();
    }
    const nlohmann::json plain = nlohmann::json::parse(record.dump());
    const bool disturbed = succeeded(plain) && record_disturbed(plain);
    const bool again = disturbed && attempt < spec.rerun_disturbed;
    nlohmann::ordered_json design = {{"key", key}, {"cell", nlohmann::ordered_json(cell.values)}};
    design["repeat"] = repeat;
    design["run"] = run;
    if (rank >= 0) design["rank"] = rank;
    if (disturbed) design["disturbed"] = true;
    if (again) design["superseded"] = true;
    record["design"] = design;
    records.push_back(std::move(record));
    if (!again) return records;
  }
}

// Appends a planned run's records to `out`, counts them and (with `print`) finishes the run's
// line: each attempt's status, a disturbed one followed by its re-run.
void conclude(const std::vector<nlohmann::ordered_json>& records, const std::string& out, bool print, DesignTotals& totals) {
  for (const nlohmann::ordered_json& record : records) {
    run::append_record(out, record.dump());
    const std::string status = record.value("status", std::string("failed"));
    const bool ok = status == "completed" || status == "diverged";
    const nlohmann::ordered_json& d = record["design"];
    const bool again = d.value("superseded", false), disturbed = d.value("disturbed", false);
    if (print) {
      const auto& m = record.contains("metrics") ? record["metrics"] : nlohmann::ordered_json::object();
      if (ok)
        std::printf("%s: training %.3f s, %.0f images/s, accuracy %.4f%s", status.c_str(), m.value("train_time_s", 0.0),
                    m.value("images_per_s", 0.0), m.value("accuracy", 0.0),
                    again ? "; DISTURBED by other processes: running it again ... "
                          : disturbed ? "; DISTURBED by other processes (kept: no re-run left)\n" : "\n");
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
  }
}

std::string records_text(const std::vector<nlohmann::ordered_json>& records) { return nlohmann::ordered_json(records).dump(); }

std::vector<nlohmann::ordered_json> records_of(const std::string& text) {
  const nlohmann::ordered_json array = nlohmann::ordered_json::parse(text);
  return std::vector<nlohmann::ordered_json>(array.begin(), array.end());
}

}  // namespace

DesignTotals run_design(const DesignSpec& spec, const DesignPlan& plan, const std::string& out, const DesignRunner& runner,
                        bool print) {
  const std::string key = design_key(spec);
  const std::vector<PlannedDesignRun> order = design_run_order(spec, plan);
  const bool over_ranks = dist::size() > 1;
  DesignTotals totals;
  std::vector<std::int64_t> todo;  // rank 0's: the runs not yet in `out`, in the randomised order
  std::string error;
  if (dist::rank() == 0) {
    try {
      const std::set<std::string> done = done_runs(out, key);
      for (std::size_t i = 0; i < order.size(); ++i) {
        if (done.count(design_run_identity(key, cell_text(plan.cells[order[i].cell]), order[i].repeat)))
          ++totals.skipped;
        else
          todo.push_back(static_cast<std::int64_t>(i));
      }
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  if (over_ranks) error = dist::broadcast_text(error);  // every rank stops alike on a bad results file
  if (!error.empty()) throw std::runtime_error(error);
  auto line = [&](std::int64_t i) {
    const PlannedDesignRun& r = order[static_cast<std::size_t>(i)];
    return "[" + std::to_string(i + 1) + "/" + std::to_string(order.size()) + "] " + cell_text(plan.cells[r.cell]) +
           " repeat " + std::to_string(r.repeat + 1);
  };
  auto attempts = [&](std::int64_t i, const std::function<void()>& serve) {
    const PlannedDesignRun& r = order[static_cast<std::size_t>(i)];
    return run_attempts(spec, plan.cells[r.cell], key, r.repeat, static_cast<std::size_t>(i), over_ranks ? dist::rank() : -1,
                        runner, serve);
  };
  if (!over_ranks) {
    for (std::int64_t i : todo) {
      if (print) {
        std::printf("%s ... ", line(i).c_str());
        std::fflush(stdout);
      }
      conclude(attempts(i, {}), out, print, totals);
    }
    return totals;
  }
  // Distributed: rank 0 hands the runs out (graph/distributed/work_queue.h), each rank trains
  // its runs in forked processes, and rank 0 alone appends the records each rank sends back.
  if (print && dist::rank() == 0)
    std::printf("distributed design: %zu runs to do (%d already in %s) over %d ranks\n", todo.size(), totals.skipped,
                out.c_str(), dist::size());
  const std::string closing = dist::run_work_queue(
      todo, [&](std::int64_t i, const std::function<void()>& serve) { return records_text(attempts(i, serve)); },
      [&](std::int64_t i, int rank, const std::string& result) {
        if (print) std::printf("%s (rank %d) ... ", line(i).c_str(), rank);
        conclude(records_of(result), out, print, totals);
      },
      [&] {
        return std::to_string(totals.runs) + " " + std::to_string(totals.skipped) + " " + std::to_string(totals.failed) +
               " " + std::to_string(totals.rerun) + " " + std::to_string(totals.disturbed);
      });
  std::istringstream(closing) >> totals.runs >> totals.skipped >> totals.failed >> totals.rerun >> totals.disturbed;
  return totals;
}

DesignRunner child_process_runner(const DesignSpec& spec, bool verbose) {
  const std::int64_t max_iterations = spec.max_iterations;
  return [max_iterations, verbose](const run::Flags& args, const std::function<void()>& serve) {
    run::RunConfig config = run::resolve_run_config(args);  // throws: flags that do not resolve together
    config.quiet = !verbose || dist::rank() != 0;
    ChildOutcome o = train_in_child(
        config, max_iterations,
        [](nlohmann::ordered_json& record, const std::string& note) {
          if (!note.empty()) record["design_note"] = note;
        },
        [](const run::RunOutcome& done, const std::string&) {
          if (done.result.status != "completed" && done.result.status != "diverged") {
            auto r = nlohmann::ordered_json::parse(done.record);
            r["status"] = "failed";
            r["error"] = done.result.error.empty() ? done.result.status : done.result.error;
            return r.dump();
          }
          return done.record;
        },
        serve);
    if (!o.ok) throw std::runtime_error(o.error);
    return o.text;
  };
}

}  // namespace ablate::bench::experiments
