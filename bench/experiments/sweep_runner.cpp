// Execution and resumption of sweep points (see sweep_runner.h).
#include "bench/experiments/sweep_runner.h"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <set>
#include <sstream>
#include <stdexcept>

#include "bench/experiments/child_process.h"
#include "bench/run/result_record.h"
#include "bench/run/run_config.h"
#include "bench/run/run_configuration.h"
#include "datasets/dataset_registry.h"
#include "graph/distributed/communicator.h"
#include "graph/distributed/work_queue.h"

namespace ablate::bench::experiments {

namespace dist = graph::distributed;

namespace {

std::string identity(const std::string& label_base, const std::map<std::string, std::string>& point, int repeat) {
  return label_base + " | " + point_text(point) + " | " + std::to_string(repeat);
}

// The record's "sweep" member: {label, base, point, repeat[, note][, rank]}.
void add_sweep(nlohmann::ordered_json& record, const SweepSpec& spec, const SweepPoint& point, const std::string& note,
               int rank) {
  nlohmann::ordered_json sweep = {{"label", spec.label}, {"base", base_key(spec)}};
  sweep["point"] = nlohmann::ordered_json(point.values);
  sweep["repeat"] = point.repeat;
  if (!note.empty()) sweep["note"] = note;
  if (rank >= 0) sweep["rank"] = rank;  // a distributed sweep: the rank that trained it
  record["sweep"] = sweep;
}

// What a run hands back, from its process and in a distributed sweep from its rank to rank 0:
// length-prefixed fields ("5:hello"), as notes and errors may hold any character.
std::string pack(const std::vector<std::string>& fields) {
  std::string out;
  for (const auto& f : fields) out += std::to_string(f.size()) + ":" + f;
  return out;
}

std::vector<std::string> unpack(const std::string& text) {
  std::vector<std::string> fields;
  std::size_t at = 0;
  while (at < text.size()) {
    const auto colon = text.find(':', at);
    if (colon == std::string::npos) throw std::runtime_error("a run's outcome without its field lengths");
    const std::size_t length = std::stoull(text.substr(at, colon - at));
    if (colon + 1 + length > text.size()) throw std::runtime_error("a run's outcome cut short");
    fields.push_back(text.substr(colon + 1, length));
    at = colon + 1 + length;
  }
  return fields;
}

// A finished run: its row and its record line ("" when it wrote none).
struct Finished {
  SweepRow row;
  std::string record;
};

std::string outcome(const std::string& state, const std::string& note, double accuracy = 0, double train_s = 0,
                    const std::string& record = "") {
  char numbers[64];
  std::snprintf(numbers, sizeof numbers, "%.17g %.17g", accuracy, train_s);
  return pack({state, note, numbers, record});
}

Finished finished(const SweepSpec& spec, const SweepPoint& point, const std::string& text) {
  const std::vector<std::string> f = unpack(text);
  if (f.size() != 4) throw std::runtime_error("a run's outcome has " + std::to_string(f.size()) + " fields, not 4");
  Finished done{{spec.label, point, f[0], f[1], 0, 0}, f[3]};
  std::istringstream(f[2]) >> done.row.accuracy >> done.row.train_s;
  return done;
}

// Trains one point in a child process; `rank` >= 0 in a distributed sweep (into the record).
// `serve` runs while the child works (distributed: rank 0 answers the other ranks).
std::string run_point(const SweepSpec& spec, const SweepPoint& point, bool verbose, int rank,
                      const std::function<void()>& serve) {
  run::RunConfig config;
  try {
    config = run::resolve_run_config(point_args(spec, point));
  } catch (const std::exception& e) {
    return outcome("failed", e.what());
  }
  config.quiet = !verbose;
  ChildOutcome o = train_in_child(
      config, spec.max_iterations,
      [&](nlohmann::ordered_json& record, const std::string& note) { add_sweep(record, spec, point, note, rank); },
      [](const run::RunOutcome& done, const std::string& note) {
        const run::RunResult& result = done.result;
        return outcome(result.status, note + (result.error.empty() ? "" : (note.empty() ? "" : "; ") + result.error),
                       result.metrics.accuracy, result.metrics.train_time_s, done.record);
      },
      serve);
  return o.ok ? o.text : outcome("failed", o.error);
}

// Appends the record of a finished run, prints its line and counts it.
void conclude(const Finished& f, const std::string& out, const std::string& prefix, SweepTotals& totals) {
  if (!f.record.empty()) run::append_record(out, f.record);
  const SweepRow& row = f.row;
  if (row.state == "completed" || row.state == "diverged")
    std::printf("%s%s: accuracy %.4f, training %.2f s%s%s\n", prefix.c_str(), row.state.c_str(), row.accuracy,
                row.train_s, row.note.empty() ? "" : "; ", row.note.c_str());
  else
    std::printf("%s%s: %s\n", prefix.c_str(), row.state.c_str(), row.note.c_str());
  std::fflush(stdout);
  totals.runs += row.state == "completed" || row.state == "diverged";
  totals.failed += row.state == "failed";
}

// One run of the sweeps, in the order they run.
struct PlannedRun {
  const SweepSpec* spec;
  SweepPoint point;
  std::string where;  // "sweep: batch=16 repeat 1"
};

std::vector<PlannedRun> plan(const std::vector<SweepSpec>& specs) {
  std::vector<PlannedRun> runs;
  for (const auto& spec : specs)
    for (const auto& point : expand(spec))
      runs.push_back({&spec, point,
                      spec.label + ": " + point_text(point.values) +
                          (spec.repeats > 1 ? " repeat " + std::to_string(point.repeat) : "")});
  return runs;
}

// Reads `out` (reporting damaged lines, removing a partial last line) and returns the identities
// of the runs it holds.
std::set<std::string> runs_done(const std::string& out) {
  const run::ResultsFile existing = read_to_resume(out);
  std::set<std::string> done;
  for (const auto& r : existing.records) {
    std::string id = run_identity(r);
    if (!id.empty()) done.insert(id);
  }
  return done;
}

SweepRow skipped_row(const PlannedRun& run, const std::string& out) {
  return {run.spec->label, run.point, "skipped", "already in " + out, 0, 0};
}

std::vector<SweepRow> run_in_this_process(const std::vector<PlannedRun>& runs, const std::string& out, bool verbose,
                                          SweepTotals& totals) {
  const std::set<std::string> done = runs_done(out);
  std::vector<SweepRow> rows;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const PlannedRun& run = runs[i];
    if (done.count(run_identity(*run.spec, run.point))) {
      rows.push_back(skipped_row(run, out));
      ++totals.skipped;
      continue;
    }
    std::printf("[%zu/%zu] %s ... ", i + 1, runs.size(), run.where.c_str());
    std::fflush(stdout);
    Finished f = finished(*run.spec, run.point, run_point(*run.spec, run.point, verbose, -1, {}));
    conclude(f, out, "", totals);
    rows.push_back(std::move(f.row));
  }
  return rows;
}

// A distributed sweep: rank 0 reads the results file and queues the runs not in it (the skip
// list stays on rank 0, which alone hands out runs: every rank expands the same grid, so a run
// number names the same run everywhere); the ranks train them (work_queue.h); each record comes
// back to rank 0, which appends it and prints the run's line. Every rank gets the totals.
std::vector<SweepRow> run_over_ranks(const std::vector<PlannedRun>& runs, const std::string& out, bool verbose,
                                     SweepTotals& totals) {
  std::vector<std::pair<std::size_t, SweepRow>> rows;  // (run number, row): rank 0's, put in order at the end
  std::vector<std::int64_t> todo;
  std::string error;
  if (dist::rank() == 0) {
    try {
      const std::set<std::string> done = runs_done(out);
      for (std::size_t i = 0; i < runs.size(); ++i) {
        if (!done.count(run_identity(*runs[i].spec, runs[i].point))) {
          todo.push_back(static_cast<std::int64_t>(i));
          continue;
        }
        rows.emplace_back(i, skipped_row(runs[i], out));
        ++totals.skipped;
      }
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  error = dist::broadcast_text(error);  // every rank stops alike on a bad results file
  if (!error.empty()) throw std::runtime_error(error);
  if (dist::rank() == 0)
    std::printf("distributed sweep: %zu runs to do (%d already in %s) over %d ranks\n", todo.size(), totals.skipped,
                out.c_str(), dist::size());
  std::size_t reported = static_cast<std::size_t>(totals.skipped);
  const std::string closing = dist::run_work_queue(
      todo,
      [&](std::int64_t i, const std::function<void()>& serve) {
        const PlannedRun& run = runs[static_cast<std::size_t>(i)];
        return run_point(*run.spec, run.point, verbose && dist::rank() == 0, dist::rank(), serve);
      },
      [&](std::int64_t i, int rank, const std::string& result) {
        const PlannedRun& run = runs[static_cast<std::size_t>(i)];
        Finished f = finished(*run.spec, run.point, result);
        conclude(f, out, "[" + std::to_string(++reported) + "/" + std::to_string(runs.size()) + "] " + run.where +
                             " (rank " + std::to_string(rank) + ") ... ",
                 totals);
        rows.emplace_back(static_cast<std::size_t>(i), std::move(f.row));
      },
      [&] {
        return std::to_string(totals.runs) + " " + std::to_string(totals.skipped) + " " + std::to_string(totals.failed);
      });
  std::istringstream(closing) >> totals.runs >> totals.skipped >> totals.failed;
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<SweepRow> ordered;
  for (auto& [i, row] : rows) ordered.push_back(std::move(row));
  return ordered;
}

}  // namespace

ChildOutcome train_in_child(run::RunConfig config, std::int64_t max_iterations,
                            const std::function<void(nlohmann::ordered_json&, const std::string&)>& annotate,
                            const std::function<std::string(const run::RunOutcome&, const std::string&)>& finish,
                            const std::function<void()>& serve) {
  config.out.clear();  // the caller appends the record (rank 0 alone when distributed)
  const pid_t parent = ::getpid();
  return run_in_child(
      [&] {
        dist::leave_in_forked_child();       // a run is one process, outside any MPI job
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // and it ends with its parent (the forking thread is its main one)
        if (::getppid() != parent) throw std::runtime_error("the sweep's process ended before its run started");
        std::string note;
        run::RunHooks hooks;
        hooks.fit_to_data = [&](run::RunConfig& c, const datasets::TrainTest& data) {
          c.validation_count = capped_validation(c.validation_count, data.train.count(), note);
          cap_length(c, data.train.count() - c.validation_count, max_iterations, note);
        };
        hooks.annotate = [&](nlohmann::ordered_json& record) { annotate(record, note); };
        return finish(run::run_configuration(config, hooks), note);
      },
      serve);
}

run::ResultsFile read_to_resume(const std::string& out) {
  run::check_writable(out);
  run::ResultsFile existing = run::read_results(out);
  for (const auto& d : existing.damaged)
    std::printf("results file %s: line %lld is damaged and skipped (%s)\n", out.c_str(), static_cast<long long>(d.line),
                d.reason.c_str());
  if (run::drop_partial_last_line(out))
    std::printf("results file %s: removed its partial last line (a run cut short); that run will run again\n", out.c_str());
  return existing;
}

void cap_length(run::RunConfig& config, std::int64_t train_count, std::int64_t max_iterations, std::string& note) {
  if (max_iterations <= 0) return;
  run::resolve_length(config, train_count);
  if (config.iterations <= max_iterations) return;
  note += (note.empty() ? "" : "; ") + std::string("length capped from ") + std::to_string(config.iterations) + " to " +
          std::to_string(max_iterations) + " iterations (--max-iterations)";
  config.iterations = max_iterations;
  config.epochs = 0;
}

std::string run_identity(const nlohmann::json& record) {
  const nlohmann::json& s = run::field(record, "sweep");
  if (!s.is_object()) return "";
  std::map<std::string, std::string> point;
  const nlohmann::json& values = run::field(s, "point");
  if (values.is_object())
    for (const auto& [k, v] : values.items()) point[k] = run::text_of(v);
  return identity(run::text_of(run::field(s, "base")), point, static_cast<int>(run::number_of(run::field(s, "repeat"), -1)));
}

std::string run_identity(const SweepSpec& spec, const SweepPoint& point) {
  return identity(base_key(spec), point.values, point.repeat);
}

bool join_sweep_ranks() {
  if (!dist::launched()) return false;
  if (!dist::mpi_built()) {
    if (dist::launcher_size() > 1)
      throw std::runtime_error("a sweep started by an MPI launcher as " + std::to_string(dist::launcher_size()) +
                               " processes, but this build of ablate has no MPI: each would run the whole sweep "
                               "(install openmpi-bin and libopenmpi-dev, then configure with -DABLATE_MPI=ON)");
    return false;
  }
  dist::init();
  return dist::size() > 1;
}

bool sweep_prints() { return dist::rank() == 0; }

void refuse_distributed_runs(const std::map<std::string, std::string>& base, const std::vector<SweepFactor>& factors) {
  bool varied = false;
  for (const auto& f : factors) varied = varied || f.key == "distributed";
  if (base.count("distributed") || varied)
    throw std::invalid_argument(
        "--distributed in a sweep or design started by an MPI launcher: each of its runs trains in one "
        "process on its rank (expected no --distributed; use it with `mpirun ... ablate run`)");
}

std::vector<SweepRow> run_sweeps(const std::vector<SweepSpec>& specs, const std::string& out, bool verbose,
                                 SweepTotals& totals) {
  for (const auto& s : specs) check_spec(s);
  const bool over_ranks = join_sweep_ranks();
  if (over_ranks)
    for (const auto& s : specs) refuse_distributed_runs(s.base, s.factors);
  const std::vector<PlannedRun> runs = plan(specs);
  return over_ranks ? run_over_ranks(runs, out, verbose, totals) : run_in_this_process(runs, out, verbose, totals);
}

}  // namespace ablate::bench::experiments
