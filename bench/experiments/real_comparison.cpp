// One framework's row beside its real framework: the full run, then the curve check
// (real_comparison.h).
#include "bench/experiments/real_comparison.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "bench/experiments/attribution_measure.h"
#include "bench/experiments/child_process.h"
#include "bench/experiments/compare_budget.h"
#include "bench/experiments/validation_cap.h"
#include "bench/run/run_configuration.h"
#include "bench/run/run_snapshot.h"

namespace ablate::bench::experiments {

namespace {

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// ablate's curve run in its own process: "step loss" lines, every digit.
std::map<std::int64_t, double> ablate_curve(const run::RunConfig& config, std::string& problem) {
  ChildOutcome o = run_in_child([&] {
    run::RunHooks hooks;
    std::string note;
    hooks.fit_to_data = [&](run::RunConfig& c, const datasets::TrainTest& data) { cap_validation(c, data, note); };
    const run::RunResult r = run::run_configuration(config, hooks).result;
    std::string text;
    for (const run::CurvePoint& p : r.curve) text += std::to_string(p.iteration) + " " + run::exact(p.loss) + "\n";
    if (r.status != "completed") text += "status " + r.status + " " + r.error + "\n";
    return text;
  });
  std::map<std::int64_t, double> losses;
  if (!o.ok) {
    problem = "ablate's curve run failed: " + o.error;
    return losses;
  }
  std::istringstream in(o.text);
  for (std::string first; in >> first;) {
    if (first == "status") {
      std::getline(in, problem);
      problem = "ablate's curve run ended" + problem;
      break;
    }
    double loss = 0;
    in >> loss;
    losses[std::stoll(first)] = loss;
  }
  return losses;
}

PeerMeasure run_path(const RealPeer& peer, const PeerPath& path, const std::string& peers_dir,
                     const std::vector<std::string>& args, std::string* output = nullptr) {
  const std::string who = "the " + path_title(peer, path) + " runner";
  try {
    PeerProcessOutput out = run_real_peer(peer, path, peers_dir, args);
    if (output) *output = out.output;
    return parse_peer_output(out.output, out.exit_code, who);
  } catch (const std::exception& e) {
    PeerMeasure m;
    m.reason = who + ": " + e.what();
    return m;
  }
}

// --real-rounds: each round every real path whose full run completed (one that failed or cannot
// reproduce the recipe would only fail again), then ablate with the comparison's configuration,
// each for about options.round_seconds of timed training after the same untimed warm-up steps;
// the real side's steps from ablate's full-run speed, so that both last about as long.
void interleave(RealComparison& r, const RealPeer& peer, const std::vector<PeerPath>& all_paths,
                const run::RunConfig& config, const PeerDataDir& data, const RealOptions& options) {
  std::vector<PeerPath> paths;
  std::vector<RealPathMeasure*> measured;
  for (std::size_t i = 0; i < r.paths.size() && i < all_paths.size(); ++i)
    if (r.paths[i].full.completed()) {
      paths.push_back(all_paths[i]);
      measured.push_back(&r.paths[i]);
    }
  if (paths.empty()) return;
  const double batch = static_cast<double>(std::max<std::int64_t>(1, r.batch));
  const std::int64_t steps = std::max<std::int64_t>(10, std::llround(options.round_seconds * r.ablate.images_per_s / batch));
  std::printf("  interleaved speed: %d rounds, each real path (%lld steps) then ablate (%.1f s), after %d untimed steps\n",
              options.rounds, static_cast<long long>(steps), options.round_seconds, kUntimedWarmupSteps);
  std::fflush(stdout);
  std::vector<std::shared_ptr<std::string>> versions;
  std::vector<Measure> measures = real_measures(peer, paths, options.peers_dir, config, data.model_file(), data.path(),
                                                steps, kUntimedWarmupSteps, versions);
  measures.push_back(ablate_measure("ablate", config, options.round_seconds, kUntimedWarmupSteps));
  const std::vector<std::vector<double>> samples = interleaved_samples(measures, options.rounds, "interleaved");
  for (std::size_t i = 0; i < measured.size(); ++i) measured[i]->interleaved = interleaved_ratio(samples.back(), samples[i]);
}

}  // namespace

RealOptions real_options(const run::Flags& args) {
  RealOptions o;
  o.peers_dir = args.get("peers-dir", default_peers_dir());
  o.curve_steps = args.get_int("curve-steps", o.curve_steps, 0);
  if (args.has("real-paths")) o.paths = parse_real_paths(args.get("real-paths"));
  o.rounds = static_cast<int>(args.get_int("real-rounds", o.rounds, 0));
  o.round_seconds = args.get_double("real-seconds", o.round_seconds);
  if (!(o.round_seconds >= 0.1))
    throw std::invalid_argument("--real-seconds " + args.get("real-seconds") +
                                ": expected at least 0.1 seconds of timed training a side");
  return o;
}

run::RunConfig curve_config(const run::RunConfig& config, std::int64_t steps, const std::string& initial) {
  run::RunConfig c = config;
  run::switch_random_off(c, "the comparison's transform");
  c.iterations = steps;
  c.epochs = 0;
  c.length_scale = 1;
  c.curve_every = 1;
  c.snapshot_initial = initial;
  c.snapshot_every = 0;
  c.test_iterations = 1;
  c.test_interval = 0;
  c.test_interval_epochs = 0;
  c.validation_interval = 0;  // the validation split stays held out: the same training images
  c.patience = 0;
  c.train_accuracy_interval = 0;
  c.target_accuracy = 0;
  c.out.clear();
  c.profile.clear();
  c.resume.clear();
  c.quiet = true;
  return c;
}

RealComparison compare_with_real(const run::RunConfig& config, const CompareRow& row, const RealOptions& options) {
  RealComparison r;
  r.framework = config.framework;
  r.model = config.model;
  const PeerFor beside = real_peer_for(config.framework);
  if (!beside.peer) {
    r.state = "not run";
    r.note = "no real framework stands beside '" + config.framework + "'";
    return r;
  }
  const RealPeer& peer = *beside.peer;
  r.peer = peer.name;
  r.peer_note = beside.note;
  r.batch = config.batch;
  r.ablate = ablate_measure(config, row, r.ablate_measured);
  r.ablate_cpu_util = r.ablate_measured ? row.cpu_util : 0;
  if (const std::string missing = peer_missing(peer, options.peers_dir); !missing.empty()) {
    r.state = "not installed";
    r.note = missing;
    return r;
  }
  if (!r.ablate_measured) {
    r.state = "not run";
    r.note = "no ablate run to compare with (" + row.state + (row.note.empty() ? "" : ": " + row.note) + ")";
    return r;
  }
  const std::unique_ptr<PeerDataDir> data = PeerDataDir::make(config, r.note);
  if (!data) {
    r.state = "not run";
    return r;
  }
  const std::string& model_file = data->model_file();
  const int threads = config.backend.options.threads;
  std::vector<std::string> full_args =
      with(peer_arguments(config, model_file, data->path(), row.iterations_done, threads), peer.config_args(config));
  r.same_start = peer.same_weights && !config.snapshot_initial.empty() && std::filesystem::exists(config.snapshot_initial);
  if (r.same_start) full_args = with(full_args, {"--init-checkpoint", config.snapshot_initial});
  const std::vector<PeerPath> paths = chosen_paths(peer, options.paths);
  for (const PeerPath& path : paths) {
    std::printf("  %s: %lld steps at %d thread(s)\n", path_title(peer, path).c_str(),
                static_cast<long long>(row.iterations_done), threads);
    std::fflush(stdout);
    RealPathMeasure m;
    m.full = run_path(peer, path, options.peers_dir, full_args);
    m.title = peer.title + (m.full.version.empty() ? "" : " " + m.full.version) + (path.name.empty() ? "" : " (" + path.name + ")");
    r.paths.push_back(m);
  }
  if (options.rounds > 0) interleave(r, peer, paths, config, *data, options);

  if (options.curve_steps <= 0 || !peer.same_weights) return r;
  r.curve_steps = options.curve_steps;
  const std::string initial = data->path() + "/initial.ckpt";
  run::RunConfig curve;
  try {
    curve = curve_config(config, options.curve_steps, initial);
  } catch (const std::exception& e) {
    r.ablate_curve_problem = e.what();
    return r;
  }
  std::printf("  curve check: %lld steps from ablate's initial weights, random parts off\n",
              static_cast<long long>(options.curve_steps));
  std::fflush(stdout);
  r.ablate_losses = ablate_curve(curve, r.ablate_curve_problem);
  if (!r.ablate_curve_problem.empty()) return r;
  const std::vector<std::string> curve_args =
      with(with(peer_arguments(curve, model_file, data->path(), options.curve_steps, threads), peer.config_args(curve)),
           {"--init-checkpoint", initial, "--no-random"});
  for (std::size_t i = 0; i < paths.size(); ++i) {
    RealPathMeasure& m = r.paths[i];
    if (m.full.state == "not comparable") continue;  // the recipe: the curve run would say the same
    std::string output;
    const PeerMeasure done = run_path(peer, paths[i], options.peers_dir, curve_args, &output);
    m.losses = parse_peer_losses(output);
    m.curve = curve_difference(r.ablate_losses, m.losses, options.curve_steps);
    if (!done.completed() && m.curve.measured()) m.curve.problem = done.state + ": " + done.reason;
    else if (!done.completed()) m.curve.problem += "; " + done.state + ": " + done.reason;
  }
  return r;
}

}  // namespace ablate::bench::experiments
