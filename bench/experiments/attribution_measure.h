// The measurements behind `ablate compare --attribute` (attribution.h, attribution_shapley.h):
// configurations timed in interleaved rounds (every one once per round, so that a drift of the
// machine's speed reaches all alike), ablate's in its own process, the real framework's through
// its runner, both after the same untimed warm-up steps (kUntimedWarmupSteps, --attribute-warmup);
// and the choice of each factor's fastest value, each factor alone switched from the
// framework's own (attribution_factors.h). A failed sample is kept as kFailedSample (NaN) with its
// error, counted by every median (sample_median.h) and shown, never dropped.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench/experiments/attribution_factors.h"
#include "bench/experiments/compare_plan.h"
#include "bench/experiments/real_peers.h"
#include "bench/run/flags.h"
#include "bench/run/run_config.h"

namespace ablate::bench::experiments {

// One configuration to measure: its label and how to take one sample (images/s; kFailedSample
// when it failed, saying why in `error`).
struct Measure {
  std::string label;
  std::function<double()> sample;
  std::shared_ptr<std::string> error = std::make_shared<std::string>();
};

// Every measure once per round, in order, `rounds` times, printing each round's line; per
// measure its samples (images/s or kFailedSample), one per round. A sample during which other
// processes used more than --disturbed-above cores (bench/run/cpu_disturbance.h) is taken once
// more; if that one is disturbed too it is kept, marked DISTURBED in the line, and counted.
std::vector<std::vector<double>> interleaved_samples(std::vector<Measure>& measures, int rounds, const std::string& stage);

// ablate with `config`: `seconds` of timed training after `warmup` untimed steps, in its own process.
Measure ablate_measure(const std::string& label, run::RunConfig config, double seconds, int warmup);

// The real framework's paths as measures: its runner on the comparison's data for `steps` timed
// steps after `warmup` untimed ones; `versions` receives what each reports (one per path).
std::vector<Measure> real_measures(const RealPeer& peer, const std::vector<PeerPath>& paths, const std::string& peers_dir,
                                   const run::RunConfig& base, const std::string& model_file, const std::string& data_dir,
                                   std::int64_t steps, int warmup, std::vector<std::shared_ptr<std::string>>& versions);

// The first line of a message.
std::string first_line(const std::string& s);

// Each factor's fastest value, measured alone against the framework's own factors; `only`: the
// factors to consider, in that order (empty: every one, attribution_factors()'); one with a
// value takes it as that factor's switch without measuring it (the same end
// configuration in every run: an account repeated in another factor order compares like with
// like); a VALUE that does not resolve throws, naming it.
struct FactorChoices {
  std::vector<AttributionFactor> factors;
  std::vector<std::string> value;     // per factor, the chosen value ("" when not switched)
  std::vector<std::string> note;      // per factor, why not switched
  std::vector<std::vector<std::pair<std::string, std::size_t>>> tried;  // (value, measure index)
  std::vector<std::string> not_used;  // per factor, why its flag did not resolve alone
  std::vector<double> own_samples;    // ablate with the framework's own factors, images/s per round
  std::string own_error;
};
FactorChoices choose_fastest(const run::Flags& args, const run::RunConfig& base, const std::string& framework,
                             const std::vector<FactorRequest>& only, int rounds, double seconds, int warmup);

}  // namespace ablate::bench::experiments
