// The whole plans a per-layer plan is checked against (plan_measure.h measures them): per-layer
// times cannot see what mixing costs at run time, so a few whole plans built from the same
// per-layer medians are timed side by side and the fastest is taken. docs/plan.md, "Layouts",
// "Whole plans without layouts" and "Mixed plans".
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "bench/run/layer_plan.h"
#include "models/model_spec.h"

namespace ablate::bench::run {

// Per-layer times miss what a mixed plan costs at run time: the conversions at a layer's edges
// where neighbours differ in layout, and one library's threads still busy in the next layer's
// (OpenBLAS's pthreads spin for a while after each product, and an OpenMP team beside them runs
// on one core: docs/plan.md, "Mixed plans"). So whole plans are timed too, a training step each
// in interleaved rounds: `chosen` (each layer its fastest), "OpenMP only" (each layer whose
// choice runs threads of its own, OpenBLAS's pthreads or Eigen's pool, on its fastest plain
// choice that runs OpenMP's) and "single <choice>", every layer on the one plain candidate
// whose layer times add up least; the per-layer plan stays unless one of those is faster.
// With blocked candidates (the first plain_count candidates are plain) also "blocked" (every
// convolution, batch norm, pooling, LRN and bias layer on its fastest blocked choice, the rest
// as chosen: an elementwise layer takes either layout), "plain" (every layer its fastest plain
// choice) and the single blocked candidate whose times add up least; then, with up to
// kMaxLayoutFlips layout-aware layers, the fastest of those beside each plan that differs from
// it in one such layer's layout (a step of local search; a flip is taken only when faster by
// more than 2%; in a chain network a flip whose layer is no faster by its medians and which
// leaves no layout conversion fewer is not timed, and the note names it). The fastest is
// returned, with whole_plans_note saying what each took.
// `time_plans` gives the median seconds of a training step of each plan, timed side by side.
constexpr std::size_t kMaxLayoutFlips = 12;
using WholePlanTimer = std::function<std::vector<double>(const std::vector<LayerPlan>&)>;
LayerPlan settle_whole_plans(LayerPlan chosen, std::size_t plain_count, const models::ModelSpec& spec,
                             const WholePlanTimer& time_plans);

}  // namespace ablate::bench::run
