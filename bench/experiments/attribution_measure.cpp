// Interleaved measurements and each factor's fastest value (attribution_measure.h).
#include "bench/experiments/attribution_measure.h"

#include <algorithm>
#include <cstdio>

#include "bench/experiments/child_process.h"
#include "bench/experiments/compare_budget.h"
#include "bench/experiments/peer_runner.h"
#include "bench/experiments/sample_median.h"
#include "bench/run/cpu_disturbance.h"
#include "bench/run/text_format.h"

namespace ablate::bench::experiments {

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

std::vector<std::vector<double>> interleaved_samples(std::vector<Measure>& measures, int rounds, const std::string& stage) {
  std::vector<std::vector<double>> samples(measures.size());
  int kept_disturbed = 0;
  for (int r = 0; r < rounds; ++r) {
    std::printf("  %s round %d/%d:", stage.c_str(), r + 1, rounds);
    for (std::size_t i = 0; i < measures.size(); ++i) {
      std::fflush(stdout);
      double s = kFailedSample;
      bool disturbed = false;
      for (int attempt = 0; attempt < 2; ++attempt) {  // a disturbed sample is taken once more
        const run::CpuCounters before = run::read_cpu_counters();
        s = measures[i].sample();
        const run::Disturbance d = run::disturbance_between(before, run::read_cpu_counters());
        disturbed = s > 0 && run::is_disturbed(d, run::disturbed_above());
        if (!disturbed) break;
        if (attempt == 0) {
          std::printf(" %s DISTURBED (%s), again:", measures[i].label.c_str(), run::disturbance_text(d).c_str());
          std::fflush(stdout);
        }
      }
      kept_disturbed += disturbed;
      samples[i].push_back(s > 0 ? s : kFailedSample);
      std::printf(" %s %s%s%s", measures[i].label.c_str(), s > 0 ? run::fmt("%.0f", s).c_str() : "FAILED",
                  disturbed ? " DISTURBED" : "", i + 1 < measures.size() ? "," : "");
    }
    std::printf(" (images/s)\n");
  }
  if (kept_disturbed > 0)
    std::printf("  %s: %d sample(s) still DISTURBED when taken again (others used more than %.2f cores): kept, "
                "marked above\n",
                stage.c_str(), kept_disturbed, run::disturbed_above());
  return samples;
}

Measure ablate_measure(const std::string& label, run::RunConfig config, double seconds, int warmup) {
  config.quiet = true;
  config.snapshot_initial.clear();  // compare's full run writes the initial weights, not each measurement
  Measure out{label, {}};
  out.sample = [config, seconds, warmup, error = out.error] {
    ChildOutcome o = run_in_child([&] { return to_text(measure_warmup(config, seconds, warmup)); });
    if (!o.ok) *error = o.error;
    return o.ok ? warmup_from_text(o.text).train_images_per_s : kFailedSample;
  };
  return out;
}

std::vector<Measure> real_measures(const RealPeer& peer, const std::vector<PeerPath>& paths, const std::string& peers_dir,
                                   const run::RunConfig& base, const std::string& model_file, const std::string& data_dir,
                                   std::int64_t steps, int warmup, std::vector<std::shared_ptr<std::string>>& versions) {
  std::vector<std::string> args = peer_arguments(base, model_file, data_dir, warmup + steps, base.backend.options.threads);
  const auto at = std::find(args.begin(), args.end(), "--warmup");
  if (at != args.end()) *(at + 1) = std::to_string(warmup);  // the same untimed steps as ablate's side
  for (const std::string& a : peer.config_args(base)) args.push_back(a);
  std::vector<Measure> measures;
  for (const PeerPath& path : paths) {
    Measure m{"real " + path_title(peer, path), {}};
    auto version = std::make_shared<std::string>();
    versions.push_back(version);
    m.sample = [&peer, path, args, peers_dir, error = m.error, version] {
      const PeerProcessOutput out = run_real_peer(peer, path, peers_dir, args);
      const PeerMeasure r = parse_peer_output(out.output, out.exit_code, "the " + path_title(peer, path) + " runner");
      if (!r.completed()) *error = r.state + ": " + r.reason;
      *version = r.version;
      return r.completed() ? r.images_per_s : kFailedSample;
    };
    measures.push_back(m);
  }
  return measures;
}

FactorChoices choose_fastest(const run::Flags& args, const run::RunConfig& base, const std::string& framework,
                             const std::vector<FactorRequest>& only, int rounds, double seconds, int warmup) {
  FactorChoices ch;
  std::vector<std::string> given;  // per factor, its VALUE of NAME=VALUE ("": to be chosen)
  for (const FactorRequest& r : only) {
    ch.factors.push_back(r.factor);
    given.push_back(r.value);
  }
  if (only.empty()) {
    ch.factors = attribution_factors();
    given.assign(ch.factors.size(), "");
  }
  const std::size_t n = ch.factors.size();
  ch.value.assign(n, "");
  ch.note.assign(n, "");
  ch.tried.assign(n, {});
  ch.not_used.assign(n, "");
  for (std::size_t f = 0; f < n; ++f) {  // a given value: the switch's end, not measured alone
    if (given[f].empty()) continue;
    run::Flags with = args;
    with.set(ch.factors[f].flag, given[f]);
    const run::RunConfig c = run::resolve_run_config(with);  // throws: a value that does not resolve (names it)
    if (ch.factors[f].value(c) == ch.factors[f].value(base))
      ch.note[f] = "given as " + given[f] + ", " + framework + "'s own value: not switched";
    else
      ch.value[f] = given[f];
  }
  std::vector<Measure> measures = {ablate_measure(framework + "'s own", base, seconds, warmup)};
  for (std::size_t f = 0; f < n; ++f)
    for (const std::string& v : ch.factors[f].choices) {
      if (!given[f].empty()) break;
      try {
        run::Flags with = args;
        with.set(ch.factors[f].flag, v);
        const run::RunConfig c = run::resolve_run_config(with);
        if (ch.factors[f].value(c) == ch.factors[f].value(base)) continue;
        ch.tried[f].push_back({v, measures.size()});
        measures.push_back(ablate_measure(ch.factors[f].name + "=" + v, c, seconds, warmup));
      } catch (const std::exception& e) {
        ch.not_used[f] = first_line(e.what());
      }
    }
  std::printf("account of %s: choosing each factor's fastest value\n", framework.c_str());
  const std::vector<std::vector<double>> samples = interleaved_samples(measures, rounds, "choice");
  ch.own_samples = samples[0];
  ch.own_error = *measures[0].error;
  const Median own = median_of(samples[0]);
  if (!own.ok()) return ch;
  for (std::size_t f = 0; f < n; ++f) {
    if (!given[f].empty()) continue;
    std::string slower, failed;
    double best = own.value;
    for (const auto& [v, i] : ch.tried[f]) {
      const Median m = median_of(samples[i]);
      if (m.ok() && m.value > best) {
        best = m.value;
        ch.value[f] = v;
      }
      if (!m.ok()) failed += (failed.empty() ? "" : ", ") + v + " (" + first_line(*measures[i].error) + ")";
    }
    for (const auto& [v, i] : ch.tried[f])
      if (v != ch.value[f] && median_of(samples[i]).ok()) slower += (slower.empty() ? "" : ", ") + v;
    if (!ch.value[f].empty()) continue;
    if (ch.tried[f].empty())
      ch.note[f] = ch.not_used[f].empty() ? "already ablate's fastest choice" : "not switched: " + ch.not_used[f];
    else
      ch.note[f] = "already ablate's fastest" + (slower.empty() ? std::string() : " (" + slower + " measured slower)") +
                   (failed.empty() ? "" : "; failed to measure: " + failed);
  }
  return ch;
}

}  // namespace ablate::bench::experiments
