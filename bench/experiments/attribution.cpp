// The greedy account of a difference (attribution.h): each factor switched in turn.
#include "bench/experiments/attribution.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "bench/experiments/attribution_measure.h"
#include "bench/experiments/peer_runner.h"
#include "bench/experiments/sample_median.h"
#include "bench/run/text_format.h"

namespace ablate::bench::experiments {

AttributionOptions attribution_options(const run::Flags& args) {
  AttributionOptions o;
  o.rounds = static_cast<int>(args.get_int("rounds", o.rounds, 1));
  o.seconds = args.get_double("attribute-seconds", o.seconds);
  if (!(o.seconds > 0))
    throw std::invalid_argument("--attribute-seconds " + args.get("attribute-seconds") + ": expected a positive number of seconds");
  o.warmup = static_cast<int>(args.get_int("attribute-warmup", o.warmup, 0));
  o.method = args.get("attribute-method", o.method);
  if (o.method != "shapley" && o.method != "greedy")
    throw std::invalid_argument("--attribute-method " + o.method + ": expected shapley (the default) or greedy");
  if (args.has("attribute-factors")) {
    const auto all = attribution_factors();
    std::string known;
    for (const AttributionFactor& f : all) known += (known.empty() ? "" : ", ") + f.flag;
    for (const std::string& item : run::split_list(args.get("attribute-factors"))) {
      const std::string list = "--attribute-factors " + args.get("attribute-factors") + ": ";
      const std::size_t eq = item.find('=');
      const std::string name = item.substr(0, eq), value = eq == std::string::npos ? "" : item.substr(eq + 1);
      const auto f = std::find_if(all.begin(), all.end(), [&](const AttributionFactor& a) { return a.name == name || a.flag == name; });
      if (f == all.end()) throw std::invalid_argument(list + "unknown factor '" + name + "' (expected some of " + known + ")");
      if (eq != std::string::npos && value.empty())
        throw std::invalid_argument(list + "'" + item + "' gives no value after '=' (NAME=VALUE switches the factor to VALUE)");
      if (!value.empty() && std::find(f->choices.begin(), f->choices.end(), value) == f->choices.end())
        throw std::invalid_argument(list + name + "=" + value + ": expected one of " + run::join(f->choices, ", "));
      if (std::any_of(o.factors.begin(), o.factors.end(), [&](const FactorRequest& r) { return r.factor.name == f->name; }))
        throw std::invalid_argument(list + "factor '" + name + "' is named twice");
      o.factors.push_back({*f, value});
    }
    if (o.factors.empty()) throw std::invalid_argument("--attribute-factors '': expected some of " + known);
  }
  o.real = real_options(args);
  return o;
}

// The account's common start: the framework's real peer, installed, and ablate's measured row.
const RealPeer* account_peer(const run::RunConfig& base, const CompareRow& row, const AttributionOptions& options,
                             std::string& problem) {
  const PeerFor beside = real_peer_for(base.framework);
  if (!beside.peer) {
    problem = "no real framework stands beside '" + base.framework + "'";
    return nullptr;
  }
  if (const std::string missing = peer_missing(*beside.peer, options.real.peers_dir); !missing.empty()) {
    problem = beside.peer->title + " is not installed: " + missing;
    return nullptr;
  }
  if (!row.measured() || row.iterations_done <= 0) {
    problem = "no ablate run of " + base.framework + " (" + row.state + (row.note.empty() ? "" : ": " + row.note) + ")";
    return nullptr;
  }
  return beside.peer;
}

AccountStart start_account(const ComparePlan& plan, const CompareRow& row, const AttributionOptions& options,
                           std::string& problem) {
  AccountStart s;
  const run::RunConfig& base = plan.config;
  const RealPeer* peer = account_peer(base, row, options, problem);
  if (!peer) return s;
  s.choices = choose_fastest(plan.args, base, base.framework, options.factors, options.rounds, options.seconds, options.warmup);
  s.own = median_of(s.choices.own_samples);
  if (!s.own.ok()) {
    problem = "ablate with " + base.framework + "'s own factors could not be measured: " + s.choices.own_error;
    return s;
  }
  s.peer = peer;
  return s;
}

Waterfall attribute_greedy(const ComparePlan& plan, const CompareRow& row, const std::string& dataset,
                           const AttributionOptions& options) {
  const run::RunConfig& base = plan.config;
  Waterfall w;
  w.framework = base.framework;
  w.dataset = dataset;
  w.steps = row.iterations_done;
  w.batch = base.batch;
  w.rounds = options.rounds;
  AccountStart start = start_account(plan, row, options, w.problem);
  const RealPeer* peer = start.peer;
  if (!peer) return w;
  const auto seconds_for = [&](const Median& m) {
    return m.ok() ? static_cast<double>(w.steps * w.batch) / m.value : 0.0;
  };

  // 1. Each factor alone, each of its choices (start_account).
  FactorChoices& ch = start.choices;
  const Median& own = start.own;
  const std::vector<AttributionFactor>& factors = ch.factors;

  // 2. The waterfall: the real framework, the framework's own factors, each switch in turn.
  const std::unique_ptr<PeerDataDir> data = PeerDataDir::make(base, w.problem);
  if (!data) return w;
  const std::int64_t peer_steps = std::max<std::int64_t>(10, std::llround(options.seconds * own.value / static_cast<double>(base.batch)));
  std::vector<std::shared_ptr<std::string>> versions;
  const std::vector<PeerPath> paths = chosen_paths(*peer, options.real.paths);
  std::vector<Measure> waterfall =
      real_measures(*peer, paths, options.real.peers_dir, base, data->model_file(), data->path(), peer_steps, options.warmup, versions);
  const std::size_t first_ablate = waterfall.size();
  waterfall.push_back(ablate_measure(w.framework + "'s own", base, options.seconds, options.warmup));
  run::Flags cumulative = plan.args;
  run::RunConfig current = base;
  for (std::size_t f = 0; f < factors.size(); ++f) {
    WaterfallStep step{factors[f].name, factors[f].value(current), ch.value[f], false, ch.note[f], 0};
    // A factor the framework's own strategy does not use may apply after the switches before it
    // (the caching allocator once the strategy is dynamic): with one choice, that is its fastest.
    const bool unused_at_first = ch.tried[f].empty() && !ch.not_used[f].empty();
    if (unused_at_first && factors[f].choices.size() == 1) ch.value[f] = factors[f].choices[0];
    if (unused_at_first && ch.value[f].empty()) {
      const auto& c = factors[f].choices;
      if (std::find(c.begin(), c.end(), step.from) != c.end()) step.note = "already " + step.from;
    }
    if (!ch.value[f].empty()) {
      try {
        run::Flags next = cumulative;
        next.set(factors[f].flag, ch.value[f]);
        const run::RunConfig c = run::resolve_run_config(next);
        if (factors[f].value(c) == step.from) {
          step.note = unused_at_first ? "already " + step.from : "already " + step.from + " after the switches before it";
        } else {
          step.to = factors[f].value(c);
          step.switched = true;
          cumulative = next;
          current = c;
          waterfall.push_back(ablate_measure("+" + factors[f].name + "=" + ch.value[f], c, options.seconds, options.warmup));
        }
      } catch (const std::exception& e) {
        step.note = "not switched after the switches before it: " + first_line(e.what());
      }
    }
    w.steps_taken.push_back(step);
  }
  std::printf("account of %s: the waterfall (%lld real steps per sample after %d untimed)\n", w.framework.c_str(),
              static_cast<long long>(peer_steps), options.warmup);
  const std::vector<std::vector<double>> samples = interleaved_samples(waterfall, options.rounds, "waterfall");
  std::vector<Median> medians;
  for (const auto& s : samples) medians.push_back(median_of(s));
  auto real_title = [&](std::size_t i) {
    const PeerPath& path = paths[i];
    return peer->title + (versions[i]->empty() ? "" : " " + *versions[i]) + (path.name.empty() ? "" : " (" + path.name + ")");
  };
  w.real_title = real_title(0);
  w.real_s = seconds_for(medians[0]);
  for (std::size_t i = 1; i < first_ablate; ++i) w.other_real.push_back({real_title(i), seconds_for(medians[i])});
  w.ablate_s = seconds_for(medians[first_ablate]);
  std::size_t next = first_ablate + 1;
  for (WaterfallStep& s : w.steps_taken)
    if (s.switched) s.seconds = seconds_for(medians[next++]);
  // A failed sample is never dropped: the account names it (a failed median leaves no account).
  for (std::size_t i = 0; i < waterfall.size(); ++i) {
    if (medians[i].failed == 0) continue;
    const std::string what = (i < first_ablate ? "" : "ablate's ") + waterfall[i].label;
    if (!medians[i].ok() && w.problem.empty())
      w.problem = what + " could not be measured: " + *waterfall[i].error;
    else if (medians[i].ok())
      w.failed_samples.push_back(what + ": " + median_text(medians[i]) + " images/s, " + first_line(*waterfall[i].error));
  }
  return w;
}

}  // namespace ablate::bench::experiments
