// The whole plans beside a per-layer plan, and the one taken (see plan_whole_plans.h).
#include "bench/run/plan_whole_plans.h"

#include <optional>
#include <string>
#include <utility>

#include "bench/run/text_format.h"
#include "graph/blocked_layers.h"
#include "kernels/cpu/conv_lowering.h"

namespace ablate::bench::run {

namespace {

// Whether a choice runs threads of its own beside OpenMP's, which spin for a while after their
// work (docs/plan.md, "Mixed plans"): OpenBLAS's pthreads (its products under the library
// threading, and under openmp_frames the backward weights' and the fully connected layers')
// and Eigen's thread pool (eigen_spatial). oneDNN, ablate's loops and Eigen's own GEMM
// (library) run on OpenMP.
bool own_thread_pool(const PlanChoice& c) {
  if (!c.lowering) return false;
  const kernels::cpu::Threading t = c.threading.value_or(kernels::cpu::threadings_of(*c.lowering).front());
  if (c.backend == "openblas") return t != kernels::cpu::Threading::openmp_images;
  return *c.lowering == kernels::cpu::ConvLowering::eigen_spatial;
}

// The layer types whose ops read their activations in a layout (convolution, batch norm,
// pooling, LRN, bias); the others are elementwise or read NCHW (kernels/contract/layout_check.h).
bool layout_aware(const std::string& type) {
  return type == "convolution" || type == "pooling" || type == "global_avg_pool" || type == "lrn" ||
         type == "batch_norm" || type == "bias";
}

// The layout conversions a chain network's plan runs: along the layers, each change of layout
// between consecutive layers that have one (a layout-aware layer its choice's; the NCHW input
// and a layer that reads NCHW only, plain; an elementwise activation none: it takes either).
// nullopt where the network branches (a layer fed by another than the one before it).
std::optional<int> layout_edges(const LayerPlan& p, const models::ModelSpec& spec) {
  int edges = 0;
  bool blocked = false;  // the model input's NCHW
  for (std::size_t i = 0; i < spec.layers.size(); ++i) {
    const models::LayerSpec& l = spec.layers[i];
    const std::string before = i == 0 ? models::kModelInput : spec.layers[i - 1].name;
    if (!l.inputs.empty() && l.inputs != std::vector<std::string>{before}) return std::nullopt;
    if (graph::elementwise_layer_type(l.type)) continue;
    const LayerPlan::Row* row = p.row(l.name);
    const bool now = layout_aware(l.type) && row && row->choice.blocked;
    edges += now != blocked;
    blocked = now;
  }
  return edges;
}

}  // namespace

LayerPlan settle_whole_plans(LayerPlan chosen, std::size_t plain_count, const models::ModelSpec& spec,
                             const WholePlanTimer& time_plans) {
  auto best_of = [&](const LayerPlan::Row& row, std::size_t from, std::size_t to) {
    std::size_t best = from;
    for (std::size_t i = from; i < to; ++i)
      if (row.seconds[i] < row.seconds[best]) best = i;
    return chosen.candidates[best];
  };
  auto type_of = [&](const std::string& layer) {
    for (const models::LayerSpec& l : spec.layers)
      if (l.name == layer) return l.type;
    return std::string();
  };
  const std::size_t n = chosen.candidates.size();
  const bool layouts = plain_count < n;  // blocked candidates besides the plain ones
  LayerPlan blocked = chosen, plain = chosen;
  for (std::size_t r = 0; r < chosen.rows.size() && layouts; ++r) {
    const LayerPlan::Row& row = chosen.rows[r];
    if (row.seconds.size() != n) continue;
    plain.rows[r].choice = best_of(row, 0, plain_count);
    if (layout_aware(type_of(row.layer))) blocked.rows[r].choice = best_of(row, plain_count, n);
  }
  // And the whole plan of one candidate, the one whose layer times add up least, blocked and
  // plain: per-layer times miss what mixing backends costs at run time (3-4% on LeNet, the TF
  // CNN and cifar10_quick against the single onednn backend, 2026-12-05), so the plan is never
  // taken over a single backend that runs faster whole.
  auto single = [&](std::size_t from, std::size_t to) {
    std::size_t best = from;
    std::vector<double> total(n, 0.0);
    for (const LayerPlan::Row& row : chosen.rows)
      if (row.seconds.size() == n)
        for (std::size_t i = from; i < to; ++i) total[i] += row.seconds[i];
    for (std::size_t i = from; i < to; ++i)
      if (total[i] < total[best]) best = i;
    LayerPlan p = chosen;
    for (LayerPlan::Row& row : p.rows)
      if (row.seconds.size() == n) row.choice = chosen.candidates[best];
    return std::pair<std::string, LayerPlan>{"single " + chosen.candidates[best].label(), p};
  };
  // And the per-layer plan with every layer on OpenMP's threads: a layer whose choice runs a
  // pool of its own takes its fastest plain choice that does not.
  LayerPlan openmp = chosen;
  for (std::size_t r = 0; r < chosen.rows.size(); ++r) {
    const LayerPlan::Row& row = chosen.rows[r];
    if (row.seconds.size() != n || !own_thread_pool(row.choice)) continue;
    std::size_t best = n;
    for (std::size_t i = 0; i < plain_count; ++i)
      if (!own_thread_pool(chosen.candidates[i]) && (best == n || row.seconds[i] < row.seconds[best])) best = i;
    if (best < n) openmp.rows[r].choice = chosen.candidates[best];
  }
  std::vector<std::pair<std::string, LayerPlan>> options = {{"per layer", chosen}};
  std::vector<std::pair<std::string, LayerPlan>> others = {{"OpenMP only", openmp}, single(0, plain_count)};
  if (layouts)
    others = {{"blocked", blocked}, {"plain", plain}, {"OpenMP only", openmp}, single(plain_count, n), single(0, plain_count)};
  for (auto& [name, p] : others) {
    bool same = false;
    for (const auto& [other, q] : options) same = same || q.summary() == p.summary();
    if (!same) options.emplace_back(name, p);
  }
  if (options.size() == 1) return chosen;
  // Times named whole plans side by side; returns the fastest (the first, the incumbent, unless
  // another is faster by more than `margin`) and appends "name 7.03 ms, ...; took name" to the
  // note.
  std::string note = layouts ? "layouts: whole steps timed," : "whole steps timed,";
  auto fastest = [&](std::vector<std::pair<std::string, LayerPlan>>& named, double margin) {
    std::vector<LayerPlan> plans;
    for (const auto& [name, p] : named) plans.push_back(p);
    const std::vector<double> step = time_plans(plans);
    std::size_t best = 0;
    for (std::size_t i = 1; i < step.size(); ++i)
      if (step[i] < step[best]) best = i;
    if (step[best] > step[0] * (1 - margin)) best = 0;
    for (std::size_t i = 0; i < named.size(); ++i)
      note += std::string(i ? "," : "") + " " + named[i].first + " " + fmt("%.3f", step[i] * 1e3) + " ms";
    note += "; took " + named[best].first;
    return std::move(named[best].second);
  };
  LayerPlan out = fastest(options, 0);
  if (!layouts) {
    out.whole_plans_note = note;
    return out;
  }
  // Then one step of local search: each layout-aware layer alone in the other layout (its
  // fastest choice there), all timed beside the plan taken, which a flip replaces only when
  // faster by more than 2% (the spread of one plan timed twice in these batches: 7.35 and 7.55
  // ms for LeNet's). A mix such as LeNet's plain conv1 with a blocked conv2 is one that neither
  // whole layout gives. In a chain network a flip that makes its layer no faster by the layers'
  // medians and leaves no conversion fewer cannot gain, and is not timed.
  std::vector<std::pair<std::string, LayerPlan>> flips = {{"it", out}};
  std::vector<std::string> hopeless;
  const std::optional<int> edges = layout_edges(out, spec);
  auto seconds_on = [&](const LayerPlan::Row& row, const PlanChoice& c) {
    for (std::size_t i = 0; i < n; ++i)
      if (chosen.candidates[i] == c) return row.seconds[i];
    return 0.0;
  };
  std::size_t flippable = 0;
  for (std::size_t r = 0; r < out.rows.size(); ++r) {
    const LayerPlan::Row& row = chosen.rows[r];
    if (row.seconds.size() != n || !layout_aware(type_of(row.layer))) continue;
    ++flippable;
    LayerPlan f = out;
    const bool blocked_now = out.rows[r].choice.blocked;
    f.rows[r].choice = blocked_now ? best_of(row, 0, plain_count) : best_of(row, plain_count, n);
    if (f.rows[r].choice.blocked == blocked_now) continue;
    const std::string name = row.layer + (blocked_now ? " plain" : " blocked");
    const std::optional<int> flipped_edges = layout_edges(f, spec);
    if (edges && flipped_edges && *flipped_edges >= *edges &&
        seconds_on(row, f.rows[r].choice) >= seconds_on(row, out.rows[r].choice))
      hopeless.push_back(name);
    else
      flips.emplace_back(name, f);
  }
  const std::string untimed =
      hopeless.empty() ? "" : "not timed, no faster alone and no conversion fewer: " + join(hopeless, ", ");
  if (flips.size() > 1 && flippable <= kMaxLayoutFlips) {
    note += "; one layer flipped at a time:";
    out = fastest(flips, 0.02);
    if (!untimed.empty()) note += "; " + untimed;
  } else if (!hopeless.empty() && flippable <= kMaxLayoutFlips) {
    note += "; one layer flipped at a time: " + untimed;
  } else if (flippable > kMaxLayoutFlips) {
    note += "; no layer flipped alone (" + std::to_string(flippable) + " layout-aware layers, over " +
            std::to_string(kMaxLayoutFlips) + ")";
  }
  out.whole_plans_note = note;
  return out;
}

}  // namespace ablate::bench::run
