// The measurements of the account of a difference (attribution.h).
#include "bench/experiments/attribution.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>

#include "bench/experiments/attribution_factors.h"
#include "bench/experiments/child_process.h"
#include "bench/experiments/compare_budget.h"
#include "bench/run/text_format.h"

namespace ablate::bench::experiments {

namespace {

constexpr int kPeerWarmup = 3;  // untimed first steps of the real framework (graph set-up, first calls)

double median(std::vector<double> v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !(x > 0); }), v.end());  // failed samples
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// One configuration to measure: its label and how to take one sample (images/s; <= 0 failed,
// saying why in `error`).
struct Measure {
  std::string label;
  std::function<double()> sample;
  std::shared_ptr<std::string> error = std::make_shared<std::string>();
};

// Every measure once per round, in order, `rounds` times; the median images/s of each.
std::vector<double> interleaved(std::vector<Measure>& measures, int rounds, const std::string& stage) {
  std::vector<std::vector<double>> samples(measures.size());
  for (int r = 0; r < rounds; ++r) {
    std::printf("  %s round %d/%d:", stage.c_str(), r + 1, rounds);
    for (std::size_t i = 0; i < measures.size(); ++i) {
      std::fflush(stdout);
      samples[i].push_back(measures[i].sample());
      std::printf(" %s %.0f%s", measures[i].label.c_str(), samples[i].back(), i + 1 < measures.size() ? "," : "");
    }
    std::printf(" (images/s)\n");
  }
  std::vector<double> medians;
  for (const auto& s : samples) medians.push_back(median(s));
  return medians;
}

Measure ablate_measure(const std::string& label, run::RunConfig config, double seconds) {
  config.quiet = true;
  config.snapshot_initial.clear();  // compare's full run writes the initial weights, not each measurement
  Measure out{label, {}};
  out.sample = [config, seconds, error = out.error] {
    ChildOutcome o = run_in_child([&] { return to_text(measure_warmup(config, seconds)); });
    if (!o.ok) *error = o.error;
    return o.ok ? warmup_from_text(o.text).train_images_per_s : 0.0;
  };
  return out;
}

// The plan's flags with `flag` set to `value`, resolved and scaled as the plan's own; throws
// what resolution says (a flag the strategy does not use).
run::RunConfig resolved_with(run::Flags args, const std::string& flag, const std::string& value) {
  args.set(flag, value);
  return run::resolve_run_config(args);
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// A factor's choice: the fastest measured switch, or why none.
struct Choice {
  std::string value;  // "" when not switched
  std::string note;
};

}  // namespace

AttributionOptions attribution_options(const run::Flags& args) {
  AttributionOptions o;
  o.rounds = static_cast<int>(args.get_int("rounds", o.rounds, 1));
  o.seconds = args.get_double("attribute-seconds", o.seconds);
  if (!(o.seconds > 0))
    throw std::invalid_argument("--attribute-seconds " + args.get("attribute-seconds") + ": expected a positive number of seconds");
  o.real = real_options(args);
  return o;
}

Waterfall attribute(const ComparePlan& plan, const CompareRow& row, const std::string& dataset,
                    const AttributionOptions& options) {
  const run::RunConfig& base = plan.config;
  Waterfall w;
  w.framework = base.framework;
  w.dataset = dataset;
  w.steps = row.iterations_done;
  w.batch = base.batch;
  w.rounds = options.rounds;
  const PeerFor beside = real_peer_for(base.framework);
  if (!beside.peer) {
    w.problem = "no real framework stands beside '" + base.framework + "'";
    return w;
  }
  const RealPeer& peer = *beside.peer;
  if (const std::string missing = peer_missing(peer, options.real.peers_dir); !missing.empty()) {
    w.problem = peer.title + " is not installed: " + missing;
    return w;
  }
  if (!row.measured() || row.iterations_done <= 0) {
    w.problem = "no ablate run of " + base.framework + " (" + row.state + (row.note.empty() ? "" : ": " + row.note) + ")";
    return w;
  }
  const auto seconds_for = [&](double images_per_s) {
    return images_per_s > 0 ? static_cast<double>(w.steps * w.batch) / images_per_s : 0.0;
  };

  // 1. Each factor alone, each of its choices.
  const std::vector<AttributionFactor> factors = attribution_factors();
  std::vector<Measure> measures = {ablate_measure(w.framework + "'s own", base, options.seconds)};
  std::vector<std::vector<std::pair<std::string, std::size_t>>> tried(factors.size());  // (value, measure index)
  std::vector<std::string> not_used(factors.size());
  for (std::size_t f = 0; f < factors.size(); ++f)
    for (const std::string& v : factors[f].choices) {
      try {
        const run::RunConfig c = resolved_with(plan.args, factors[f].flag, v);
        if (factors[f].value(c) == factors[f].value(base)) continue;
        tried[f].push_back({v, measures.size()});
        measures.push_back(ablate_measure(factors[f].name + "=" + v, c, options.seconds));
      } catch (const std::exception& e) {
        not_used[f] = first_line(e.what());
      }
    }
  std::printf("account of %s: choosing each factor's fastest value\n", w.framework.c_str());
  const std::vector<double> alone = interleaved(measures, options.rounds, "choice");
  if (!(alone[0] > 0)) {
    w.problem = "ablate with " + w.framework + "'s own factors could not be measured: " + *measures[0].error;
    return w;
  }
  std::vector<Choice> choices(factors.size());
  for (std::size_t f = 0; f < factors.size(); ++f) {
    Choice& ch = choices[f];
    std::string slower;
    double best = alone[0];
    for (const auto& [v, i] : tried[f]) {
      if (alone[i] > best) {
        best = alone[i];
        ch.value = v;
      }
    }
    for (const auto& [v, i] : tried[f])
      if (v != ch.value) slower += (slower.empty() ? "" : ", ") + v;
    if (!ch.value.empty()) continue;
    if (tried[f].empty()) ch.note = not_used[f].empty() ? "already ablate's fastest choice" : "not switched: " + not_used[f];
    else ch.note = "already ablate's fastest (" + slower + " measured slower)";
  }

  // 2. The waterfall: the real framework, the framework's own factors, each switch in turn.
  const std::unique_ptr<PeerDataDir> data = PeerDataDir::make(base, w.problem);
  if (!data) return w;
  const std::int64_t peer_steps =
      kPeerWarmup + std::max<std::int64_t>(10, std::llround(options.seconds * alone[0] / static_cast<double>(base.batch)));
  std::vector<std::string> args = peer_arguments(base, data->model_file(), data->path(), peer_steps, base.backend.options.threads);
  const auto warmup = std::find(args.begin(), args.end(), "--warmup");
  if (warmup != args.end()) *(warmup + 1) = std::to_string(kPeerWarmup);
  for (const std::string& a : peer.config_args(base)) args.push_back(a);

  std::vector<Measure> waterfall;
  std::vector<std::shared_ptr<std::string>> versions;
  const std::vector<PeerPath> paths = chosen_paths(peer, options.real.paths);
  for (const PeerPath& path : paths) {
    Measure m{"real " + path_title(peer, path), {}};
    auto version = std::make_shared<std::string>();
    versions.push_back(version);
    m.sample = [&peer, path, args, dir = options.real.peers_dir, error = m.error, version] {
      const PeerProcessOutput out = run_real_peer(peer, path, dir, args);
      const PeerMeasure r = parse_peer_output(out.output, out.exit_code, "the " + path_title(peer, path) + " runner");
      if (!r.completed()) *error = r.state + ": " + r.reason;
      *version = r.version;
      return r.completed() ? r.images_per_s : 0.0;
    };
    waterfall.push_back(m);
  }
  const std::size_t first_ablate = waterfall.size();
  waterfall.push_back(measures[0]);
  run::Flags cumulative = plan.args;
  run::RunConfig current = base;
  for (std::size_t f = 0; f < factors.size(); ++f) {
    WaterfallStep step{factors[f].name, factors[f].value(current), choices[f].value, false, choices[f].note, 0};
    // A factor the framework's own strategy does not use may apply after the switches before it
    // (the caching allocator once the strategy is dynamic): with one choice, that is its fastest.
    const bool unused_at_first = tried[f].empty() && !not_used[f].empty();
    if (unused_at_first && factors[f].choices.size() == 1) choices[f].value = factors[f].choices[0];
    if (unused_at_first && choices[f].value.empty()) {
      const auto& c = factors[f].choices;
      if (std::find(c.begin(), c.end(), step.from) != c.end()) step.note = "already " + step.from;
    }
    if (!choices[f].value.empty()) {
      try {
        run::Flags next = cumulative;
        next.set(factors[f].flag, choices[f].value);
        const run::RunConfig c = run::resolve_run_config(next);
        if (factors[f].value(c) == step.from) {
          step.note = unused_at_first ? "already " + step.from : "already " + step.from + " after the switches before it";
        } else {
          step.to = factors[f].value(c);
          step.switched = true;
          cumulative = next;
          current = c;
          waterfall.push_back(ablate_measure("+" + factors[f].name + "=" + choices[f].value, c, options.seconds));
        }
      } catch (const std::exception& e) {
        step.note = "not switched after the switches before it: " + first_line(e.what());
      }
    }
    w.steps_taken.push_back(step);
  }
  std::printf("account of %s: the waterfall (%lld real steps per sample)\n", w.framework.c_str(),
              static_cast<long long>(peer_steps));
  const std::vector<double> medians = interleaved(waterfall, options.rounds, "waterfall");
  auto real_title = [&](std::size_t i) {
    const PeerPath& path = paths[i];
    return peer.title + (versions[i]->empty() ? "" : " " + *versions[i]) + (path.name.empty() ? "" : " (" + path.name + ")");
  };
  w.real_title = real_title(0);
  w.real_s = seconds_for(medians[0]);
  for (std::size_t i = 1; i < first_ablate; ++i) w.other_real.push_back({real_title(i), seconds_for(medians[i])});
  w.ablate_s = seconds_for(medians[first_ablate]);
  std::size_t next = first_ablate + 1;
  for (WaterfallStep& s : w.steps_taken)
    if (s.switched) s.seconds = seconds_for(medians[next++]);
  if (!(medians[0] > 0)) w.problem = "the real " + w.real_title + " could not be measured: " + *waterfall[0].error;
  for (std::size_t i = first_ablate; i < waterfall.size(); ++i)
    if (!(medians[i] > 0) && w.problem.empty())
      w.problem = "ablate's " + waterfall[i].label + " could not be measured: " + *waterfall[i].error;
  return w;
}

}  // namespace ablate::bench::experiments
