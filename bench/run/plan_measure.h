// `--plan auto|FILE`: the per-layer plan of a run (layer_plan.h) measured on the run's own
// network, shapes, dtype, strategy and threads, or read from the cache or a file, and the
// kernels::PlannedBackend that executes it. The candidates are every host backend of the build
// (reference, eigen, openblas, onednn) with each convolution lowering it takes and each threading
// that lowering runs under (--plan-threading run: the run's threading only; a lowering that does
// not run under it is not a candidate); the thread count, the pooling gradient and determinism
// stay the run's.
//
// Measuring: a throwaway engine of the run's strategy is built over a PlannedBackend holding
// every candidate, on a batch of the run's shape (seeded values, label 0), and a second on a
// sixteenth of the batch for the screen (layer_plan.h: two steps per candidate, the second's
// times scaled by the batches' ratio, before the rounds); each timed step
// routes every op to one candidate (PlannedBackend::route_all), but the layers pruned for that
// candidate to their stand-ins (layer_plan.h), and an op observer adds each
// op's time to the layer its label names. The run's own engine is built afterwards, from the
// run's seed, so the measurement leaves no trace in the weights.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench/run/layer_plan.h"
#include "bench/run/plan_whole_plans.h"
#include "bench/run/run_config.h"
#include "kernels/planned_backend.h"
#include "models/model_spec.h"

namespace ablate::bench::run {

// The choices timed for a run with these backend settings, in registry order: every host
// backend, each of its lowerings, and (measure_threading) each threading the lowering runs
// under, or else the run's threading (each lowering's default when the run names none).
std::vector<PlanChoice> plan_candidates(const BackendSettings& run, bool measure_threading = true);
// The options a choice's backend is made with: the run's, with the choice's lowering and
// threading (a choice without a threading: the run's); empty text when they fit, otherwise why
// not (a threading the lowering does not run under).
std::string choice_problem(const PlanChoice& choice, const BackendSettings& run);
kernels::BackendOptions choice_options(const PlanChoice& choice, const BackendSettings& run);
// The blocked choices timed besides (PlanChoice::blocked): under the static strategy with its
// blocked_layout pass on, each direct lowering whose backend has a channel-blocked layout for the
// run's dtype (onednn in f32); none otherwise.
std::vector<PlanChoice> blocked_candidates(const RunConfig& config);
// The key of this run: CPU model, threads, model name, input shapes, dtype, strategy, version.
PlanKey plan_key(const RunConfig& config, const models::ModelSpec& spec);
// The backend that runs `plan`: one backend per distinct choice (and the fallback), each layer
// routed to its choice's; `one_at_a_time`: the engine issues its ops one at a time, so the
// threads are released where the backend changes (ops_one_at_a_time below). Throws naming the
// layer when the plan names a layer the model lacks.
std::unique_ptr<kernels::PlannedBackend> make_planned_backend(const LayerPlan& plan, const models::ModelSpec& spec,
                                                              const BackendSettings& run, bool one_at_a_time);
// The weights rows of a measured plan (kernels/planned_backend.h: a convolution's weight
// gradient timed and chosen apart from its layer) run in NCHW beside their layer: one whose
// fastest was a blocked candidate takes its fastest of the first `plain_count` (the plain ones).
// A row on its layer's choice stays (the table shows its time; the layer's route would run it
// alike).
void plain_weights_rows(LayerPlan& plan, std::size_t plain_count);
// A layer that no plain candidate (the first `plain_count`) timed but a blocked one did ran
// inside the layer before it in the plain engine (the static conv_pool_fusion pass folds a max
// pooling into the convolution before it, run on the convolution's backend): its row takes that
// layer's choice, so the plan names the backend the pair runs on.
void folded_rows(LayerPlan& plan, std::size_t plain_count);
// Whether the run issues its ops one at a time (every strategy but the static one under the
// parallel executor): then a planned backend releases a library's threads where the backend
// changes (kernels::PlannedBackend::set_release_on_switch).
bool ops_one_at_a_time(const RunConfig& config);
// Wall time and steps: of all the timed steps, or one candidate's share of them (the time of the
// layers it ran, and the rest of the steps handed to it; the steps it ran a layer in).
struct StepCost {
  double seconds = 0;
  std::int64_t steps = 0;
};
// LayerPlan::measure_note: "start-up 4.39 s: engines built 0.10 s; screen 0.64 s; 50 timed
// steps 3.14 s (onednn/direct 0.62 s in 10 steps, ...); whole plans 0.51 s" (the three costliest
// candidates' shares; the screen and the whole plans only where they ran).
std::string measure_note(double total_seconds, double build_seconds, const std::vector<PlanChoice>& candidates,
                         const std::vector<StepCost>& costs, const StepCost& steps, double screen_seconds,
                         double settle_seconds);
// Times every candidate on the run's network (above), as choose_plan does; measure_note says
// where the time went.
LayerPlan measure_plan(const RunConfig& config, const models::ModelSpec& spec, const PlanTiming& timing = {});

struct PlanResolution {
  LayerPlan plan;
  std::string source;  // "measured", "cache <path>", "file <path>"
  std::string note;    // why a cache was not used, or how a replayed file's key differs; "" if none
  double startup_s = 0;  // reading or measuring the plan and building its backends
};
// config.plan "auto": the cache file (config.plan_cache/<model>.plan) when its key matches,
// otherwise measured and written there; any other value: the plan file given, replayed (a
// differing key is noted, not refused: it was asked for).
PlanResolution resolve_plan(const RunConfig& config, const models::ModelSpec& spec);
// The default cache folder: $XDG_CACHE_HOME/ablate/plans, else $HOME/.cache/ablate/plans,
// else ./.ablate-plans.
std::string default_plan_cache();

}  // namespace ablate::bench::run
