// Measuring, caching and executing a per-layer plan (see plan_measure.h).
#include "bench/run/plan_measure.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <set>
#include <stdexcept>

#include "bench/run/environment.h"
#include "bench/run/layer_timer.h"
#include "bench/run/median.h"
#include "bench/run/strategy_switches.h"
#include "bench/run/text_format.h"
#include "kernels/registry.h"
#include "kernels/shared_tuning.h"

namespace ablate::bench::run {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// A batch of the run's input shape: values from a fixed linear congruential sequence in
// [-1, 1), every label 0 (a class of every model).
void fill_batch(kernels::Tensor& x) {
  std::uint64_t state = 12345;
  const std::int64_t n = x.numel();
  for (std::int64_t i = 0; i < n; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const double v = static_cast<double>(state >> 11) / 9007199254740992.0 * 2.0 - 1.0;
    if (x.dtype() == kernels::DType::f64)
      x.data<double>()[i] = v;
    else
      x.data<float>()[i] = static_cast<float>(v);
  }
}

std::string shape_text(std::int64_t batch, const std::vector<int>& chw) {
  std::string s = std::to_string(batch);
  for (int d : chw) s += "x" + std::to_string(d);
  return s;
}

// The run's own threading, if it names one (--threading, or the pair --conv-mode names).
std::optional<kernels::cpu::Threading> run_threading(const BackendSettings& run) {
  if (run.options.threading) return run.options.threading;
  if (run.options.conv_mode) return kernels::cpu::gemm_loops_of(*run.options.conv_mode).threading;
  return std::nullopt;
}

// The screen's slice of the batch (layer_plan.h): batch 100 is screened on 6 images.
constexpr std::int64_t kScreenDivisor = 16;

// The engines a candidate's steps run on, and their batch: `plain` (NCHW, a layer routed to
// its stand-in where pruned) and, with blocked candidates, `blocked`, its graph laid out
// blocked wherever the backend runs it (every layer routed blocked while it is built; its
// layouts are fixed, so it takes no stand-ins: a blocked candidate's steps run every layer on it).
struct StepEngines {
  std::unique_ptr<graph::Engine> plain, blocked;
  kernels::Tensor x, labels;
};

// `first_blocked`: the first blocked candidate's backend, or nullptr (no blocked engine).
StepEngines build_step_engines(const RunConfig& config, const models::ModelSpec& spec, kernels::PlannedBackend& planned,
                               kernels::Backend* first_blocked, std::int64_t batch) {
  StepEngines e;
  e.plain = make_engine(config, spec, planned);
  if (first_blocked) {
    planned.route_all(first_blocked, {}, true);
    e.blocked = make_engine(config, spec, planned);
    planned.route_all(nullptr);
  }
  e.x = kernels::Tensor({batch, spec.input_shape[0], spec.input_shape[1], spec.input_shape[2]}, config.precision);
  fill_batch(e.x);
  e.labels = kernels::Tensor({batch}, kernels::DType::i32);
  return e;
}

// The run's configuration for a throwaway engine that only times ops: it learns slowly and
// never stops on a gradient check.
RunConfig throwaway_config(const RunConfig& config) {
  RunConfig quiet = config;
  quiet.optimizer.lr.base_lr *= 1e-3;
  quiet.optimizer.check_gradients = false;
  return quiet;
}

// Wall seconds of a training step of each of `count` plans, `step(i)` running plan i's, in
// interleaved rounds: the median per plan.
std::vector<double> median_steps(std::size_t count, const PlanTiming& timing, const std::function<void(std::size_t)>& step) {
  std::vector<std::vector<double>> samples(count);
  for (int round = 0; round < timing.warmup + timing.rounds; ++round)
    for (std::size_t k = 0; k < count; ++k) {
      const std::size_t i = (k + static_cast<std::size_t>(round)) % count;
      const Clock::time_point t = Clock::now();
      step(i);
      if (round >= timing.warmup) samples[i].push_back(seconds_since(t));
    }
  std::vector<double> medians;
  for (const std::vector<double>& s : samples) medians.push_back(median(s));
  return medians;
}

// Whole plans on engines of their own (their layouts differ, and an engine fixes its layouts
// when built).
std::vector<double> time_whole_plans(const std::vector<LayerPlan>& plans, const RunConfig& config,
                                     const models::ModelSpec& spec, const PlanTiming& timing, const kernels::Tensor& x,
                                     const kernels::Tensor& labels) {
  const RunConfig quiet = throwaway_config(config);
  std::vector<std::unique_ptr<kernels::PlannedBackend>> backends;
  std::vector<std::unique_ptr<graph::Engine>> engines;
  for (const LayerPlan& p : plans) {
    backends.push_back(make_planned_backend(p, spec, config.backend, ops_one_at_a_time(config)));
    engines.push_back(make_engine(quiet, spec, *backends.back()));
  }
  std::int64_t iteration = 0;
  return median_steps(plans.size(), timing, [&](std::size_t i) {
    engines[i]->train_step(x, labels, iteration++);
    backends[i]->synchronize();
    backends[i]->release_threads();  // a plan's backends are its own: no switch releases them
  });
}

}  // namespace

std::string measure_note(double total_seconds, double build_seconds, const std::vector<PlanChoice>& candidates,
                         const std::vector<StepCost>& costs, const StepCost& steps, double screen_seconds,
                         double settle_seconds) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < costs.size(); ++i)
    if (costs[i].steps > 0) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return costs[a].seconds > costs[b].seconds; });
  std::string note = "start-up " + fmt("%.2f", total_seconds) + " s: engines built " + fmt("%.2f", build_seconds) + " s; " +
                     (screen_seconds > 0 ? "screen " + fmt("%.2f", screen_seconds) + " s; " : std::string()) +
                     std::to_string(steps.steps) + " timed steps " + fmt("%.2f", steps.seconds) + " s (";
  for (std::size_t k = 0; k < std::min<std::size_t>(3, order.size()); ++k) {
    const StepCost& c = costs[order[k]];
    note += std::string(k ? ", " : "") + candidates[order[k]].label() + " " + fmt("%.2f", c.seconds) + " s in " +
            std::to_string(c.steps) + (c.steps == 1 ? " step" : " steps");
  }
  note += std::string(order.size() > 3 ? ", ..." : "") + ")";
  if (settle_seconds > 0) note += "; whole plans " + fmt("%.2f", settle_seconds) + " s";
  return note;
}

std::string choice_problem(const PlanChoice& choice, const BackendSettings& run) {
  const kernels::BackendOptions o = choice_options(choice, run);
  for (kernels::BackendOption option : kernels::options_set(o)) {
    const std::string problem = kernels::option_problem(choice.backend, o, option);
    if (!problem.empty()) return problem;
  }
  return "";
}

kernels::BackendOptions choice_options(const PlanChoice& choice, const BackendSettings& run) {
  kernels::BackendOptions o;
  o.threads = run.options.threads;
  o.pool_gradient = run.options.pool_gradient;
  o.deterministic = run.options.deterministic;
  o.conv_lowering = choice.lowering;
  if (choice.lowering) o.threading = choice.threading ? choice.threading : run_threading(run);
  if (choice.backend == run.name || choice.backend == "onednn") o.onednn_conv_layout = run.options.onednn_conv_layout;
  if (choice.backend != "onednn") o.onednn_conv_layout.reset();
  return o;
}

std::vector<PlanChoice> plan_candidates(const BackendSettings& run, bool measure_threading) {
  std::vector<PlanChoice> out;
  for (const std::string& name : kernels::backend_names()) {
    if (name == "cuda") continue;
    const std::vector<kernels::cpu::ConvLowering> lowerings = kernels::conv_lowerings_of(name);
    std::vector<PlanChoice> choices;
    if (lowerings.empty()) choices.push_back({name, std::nullopt, std::nullopt});
    for (kernels::cpu::ConvLowering l : lowerings) {
      if (!measure_threading) {
        const std::vector<kernels::cpu::Threading> takes = kernels::cpu::threadings_of(l);
        choices.push_back({name, l, run_threading(run).value_or(takes.front())});
        continue;
      }
      for (kernels::cpu::Threading t : kernels::cpu::threadings_of(l)) choices.push_back({name, l, t});
    }
    for (PlanChoice& c : choices)
      if (choice_problem(c, run).empty()) out.push_back(std::move(c));
  }
  return out;
}

std::vector<PlanChoice> blocked_candidates(const RunConfig& config) {
  std::vector<PlanChoice> out;
  // The static strategy's blocked_layout pass, or the layer-wise or dynamic strategy's
  // --blocked-layout on.
  const auto& disabled = config.switches.disabled_passes;
  const bool static_pass = config.strategy == "static" &&
                           std::find(disabled.begin(), disabled.end(), "blocked_layout") == disabled.end();
  if (!static_pass && !(config.strategy != "static" && config.switches.blocked_layout)) return out;
  for (const std::string& name : kernels::backend_names()) {
    if (name == "cuda") continue;
    for (kernels::cpu::ConvLowering l : kernels::conv_lowerings_of(name)) {
      if (l != kernels::cpu::ConvLowering::direct) continue;
      PlanChoice c{name, l, kernels::cpu::threadings_of(l).front(), true};
      if (!choice_problem(c, config.backend).empty()) continue;
      if (kernels::make_backend(name, choice_options(c, config.backend))->channel_block(config.precision) > 0)
        out.push_back(std::move(c));
    }
  }
  return out;
}

PlanKey plan_key(const RunConfig& config, const models::ModelSpec& spec) {
  const Environment env = capture_environment();
  PlanKey k;
  k.cpu_model = env.values.at("cpu_model");
  k.threads = config.backend.options.threads;
  k.model = spec.name;
  k.shapes = shape_text(engine_options(config).batch, spec.input_shape);
  k.dtype = kernels::dtype_name(config.precision);
  k.strategy = config.strategy;
  if (config.strategy == "static") {
    k.passes = "all";
    for (const std::string& p : config.switches.disabled_passes) k.passes += ",-" + p;
  }
  if (config.strategy != "static" && config.switches.blocked_layout) k.passes = "blocked_layout";
  if (config.plan_threading == "run") {
    const auto t = run_threading(config.backend);
    k.threading = std::string("run ") + (t ? kernels::cpu::threading_name(*t) : "default");
  } else {
    k.threading = "measured";
  }
  k.version = std::string(ABLATE_VERSION) + " " + env.values.at("git_revision");
  return k;
}

void plain_weights_rows(LayerPlan& plan, std::size_t plain_count) {
  for (LayerPlan::Row& row : plan.rows) {
    if (kernels::PlannedBackend::weights_layer(row.layer).empty() || !row.choice.blocked) continue;
    std::size_t best = 0;
    for (std::size_t i = 1; i < plain_count && i < row.seconds.size(); ++i)
      if (row.seconds[i] < row.seconds[best]) best = i;
    row.choice = plan.candidates.at(best);
  }
}

void folded_rows(LayerPlan& plan, std::size_t plain_count) {
  const LayerPlan::Row* before = nullptr;
  for (LayerPlan::Row& row : plan.rows) {
    if (!kernels::PlannedBackend::weights_layer(row.layer).empty()) continue;
    bool timed = false;
    for (std::size_t i = 0; i < plain_count && i < row.seconds.size(); ++i) timed = timed || row.seconds[i] > 0;
    if (!timed && before && !row.seconds.empty()) row.choice = before->choice;
    before = &row;
  }
}

bool ops_one_at_a_time(const RunConfig& config) {
  return config.strategy != "static" || config.switches.executor != graph::ExecutorKind::parallel;
}

std::unique_ptr<kernels::PlannedBackend> make_planned_backend(const LayerPlan& plan, const models::ModelSpec& spec,
                                                              const BackendSettings& run, bool one_at_a_time) {
  for (const LayerPlan::Row& row : plan.rows) {  // every layer and choice checked before any backend is made
    const std::string_view named = kernels::PlannedBackend::weights_layer(row.layer);
    const std::string layer_name = named.empty() ? row.layer : std::string(named);
    const models::LayerSpec* layer = nullptr;
    for (const models::LayerSpec& l : spec.layers)
      if (l.name == layer_name) layer = &l;
    if (!layer)
      throw std::invalid_argument("plan: layer '" + row.layer + "' is not a layer of model " + spec.name +
                                  " (a plan of another model?)");
    if (!named.empty() && layer->type != "convolution")
      throw std::invalid_argument("plan: row '" + row.layer + "' gives a weight gradient of its own to layer '" +
                                  layer_name + "', a " + layer->type + " layer; only a convolution's is chosen apart");
  }
  auto make = [&](const PlanChoice& c, const std::string& what) {
    const std::string problem = choice_problem(c, run);
    if (!problem.empty())
      throw std::invalid_argument("plan: " + what + " " + c.label() + " cannot run with this run's settings: " + problem +
                                  " (name a lowering that does, or change --threading)");
    return kernels::make_backend(c.backend, choice_options(c, run));
  };
  auto planned = std::make_unique<kernels::PlannedBackend>(make(plan.fallback, "the fallback"), plan.fallback.label());
  planned->set_release_on_switch(one_at_a_time);
  std::vector<std::pair<PlanChoice, kernels::Backend*>> made = {{plan.fallback, &planned->fallback()}};
  for (const LayerPlan::Row& row : plan.rows) {
    kernels::Backend* backend = nullptr;
    for (auto& [choice, b] : made)
      if (choice == row.choice) backend = b;
    if (!backend) {
      backend = &planned->add(make(row.choice, "layer " + row.layer + "'s"), row.choice.label());
      made.emplace_back(row.choice, backend);
    }
    planned->route(row.layer, *backend, row.choice.blocked);
  }
  return planned;
}

LayerPlan measure_plan(const RunConfig& config, const models::ModelSpec& spec, const PlanTiming& timing) {
  const Clock::time_point start = Clock::now();
  // The whole plans' own backends build the convolutions the candidates already tuned: they
  // take the candidates' layouts instead of timing them again (oneDNN: 0.5 s a plain plan).
  const kernels::SharedTuning shared_tuning;
  std::vector<PlanChoice> candidates = plan_candidates(config.backend, config.plan_threading != "run");
  const std::size_t plain_count = candidates.size();
  for (PlanChoice& c : blocked_candidates(config)) candidates.push_back(std::move(c));
  if (candidates.empty())
    throw std::invalid_argument("--plan auto: no host backend of this build runs with the run's settings");
  auto planned = std::make_unique<kernels::PlannedBackend>(
      kernels::make_backend(candidates.front().backend, choice_options(candidates.front(), config.backend)),
      candidates.front().label());
  planned->set_release_on_switch(ops_one_at_a_time(config));
  std::vector<kernels::Backend*> backends = {&planned->fallback()};
  for (std::size_t i = 1; i < candidates.size(); ++i)
    backends.push_back(&planned->add(kernels::make_backend(candidates[i].backend,
                                                           choice_options(candidates[i], config.backend)),
                                     candidates[i].label()));
  const RunConfig quiet = throwaway_config(config);
  const std::int64_t batch = engine_options(config).batch;
  // The screen's engines (layer_plan.h): the run's network on a slice of its batch.
  RunConfig slice = quiet;
  slice.batch = std::max<std::int64_t>(1, batch / kScreenDivisor) * quiet.ranks;
  const std::int64_t slice_batch = engine_options(slice).batch;
  const Clock::time_point build_start = Clock::now();
  kernels::Backend* const first_blocked = plain_count < candidates.size() ? backends[plain_count] : nullptr;
  StepEngines whole = build_step_engines(quiet, spec, *planned, first_blocked, batch);
  StepEngines screened;
  if (timing.prune_screen > 0 && slice_batch < batch)
    screened = build_step_engines(slice, spec, *planned, first_blocked, slice_batch);
  const double build_seconds = seconds_since(build_start);
  LayerTimer timer(*planned);
  planned->set_observer(&timer);
  std::int64_t iteration = 0;
  std::vector<std::string> layers;
  for (const models::LayerSpec& layer : spec.layers) {
    layers.push_back(layer.name);
    if (layer.type == "convolution") layers.push_back(kernels::PlannedBackend::weights_row(layer.name));
  }
  // One training step of candidate `index` on `engines` (a blocked candidate on the blocked
  // engine, every layer on it; a plain one with its stand-ins): each layer's seconds.
  auto step = [&](StepEngines& engines, std::size_t index, const StandIns& stand_ins) {
    timer.take();
    if (index >= plain_count) {
      planned->route_all(backends[index], {}, true);
      engines.blocked->train_step(engines.x, engines.labels, iteration++);
    } else {
      std::vector<std::pair<std::string, kernels::Backend*>> except;
      for (const auto& [layer, other] : stand_ins) except.emplace_back(layer, backends[other]);
      planned->route_all(backends[index], std::move(except));
      engines.plain->train_step(engines.x, engines.labels, iteration++);
    }
    // No library thread spins on into the next candidate's step (with ops one at a time the
    // next op's backend change releases them too; not under the parallel executor).
    planned->release_threads();
    return timer.take();
  };
  std::vector<StepCost> costs(candidates.size());  // each candidate's share of the steps
  StepCost all_steps;
  double screen_seconds = 0;
  StepTimer screen;  // one step on the slice, its times scaled up to the batch
  if (screened.plain)
    screen = [&](std::size_t index, const StandIns& stand_ins) {
      const Clock::time_point start = Clock::now();
      std::map<std::string, double> times = step(screened, index, stand_ins);
      for (auto& [layer, seconds] : times) seconds *= static_cast<double>(batch) / static_cast<double>(slice_batch);
      screen_seconds += seconds_since(start);
      return times;
    };
  // Twins: plain candidates of one backend whose setups agree for every op of the layer (the
  // pooling, activations and fully connected layers of the lowerings of one backend and threads).
  auto twins = [&](const std::string& layer, std::size_t c) {
    const std::set<kernels::Op> ops = timer.ops(layer);
    if (c >= plain_count || ops.empty()) return c;  // a blocked candidate runs on its own engine
    for (std::size_t t = 0; t < c; ++t) {
      if (candidates[t].backend != candidates[c].backend) continue;
      bool same = true;
      for (kernels::Op op : ops) {
        const std::string setup = backends[c]->op_setup(op);
        same = same && !setup.empty() && setup == backends[t]->op_setup(op);
      }
      if (same) return t;
    }
    return c;
  };
  LayerPlan plan = choose_plan(
      layers, candidates, timing,
      [&](std::size_t index, const StandIns& stand_ins) {
        const Clock::time_point step_start = Clock::now();
        std::map<std::string, double> times = step(whole, index, stand_ins);
        const double wall = seconds_since(step_start);
        all_steps.seconds += wall, all_steps.steps += 1;
        // Each layer's time to the candidate that ran it (a blocked one runs them all), the
        // rest of the step (the ops of no layer, the engine) to `index`.
        std::set<std::size_t> ran = {index};
        double layers_seconds = 0;
        for (const auto& [layer, seconds] : times) {
          auto other = stand_ins.find(layer);
          const std::size_t c = other == stand_ins.end() || index >= plain_count ? index : other->second;
          costs[c].seconds += seconds, layers_seconds += seconds;
          ran.insert(c);
        }
        costs[index].seconds += std::max(0.0, wall - layers_seconds);
        for (std::size_t c : ran) costs[c].steps += 1;
        return times;
      },
      screen, twins);
  planned->set_observer(nullptr);
  // Layers that ran no op of their own (an input, a layer folded into another) keep the fallback.
  std::vector<LayerPlan::Row> timed;
  for (LayerPlan::Row& row : plan.rows) {
    double total = 0;
    for (double s : row.seconds) total += s;
    if (total > 0) timed.push_back(std::move(row));
  }
  plan.rows = std::move(timed);
  plain_weights_rows(plan, plain_count);
  folded_rows(plan, plain_count);
  plan.key = plan_key(config, spec);
  plan.fallback = PlanChoice{config.backend.name,
                             config.backend.options.conv_lowering
                                 ? config.backend.options.conv_lowering
                                 : (kernels::conv_lowerings_of(config.backend.name).empty()
                                        ? std::nullopt
                                        : std::optional(kernels::conv_lowerings_of(config.backend.name).front())),
                             std::nullopt};
  if (plan.fallback.lowering)
    plan.fallback.threading = run_threading(config.backend).value_or(kernels::cpu::threadings_of(*plan.fallback.lowering).front());
  if (!choice_problem(plan.fallback, config.backend).empty() || config.backend.name == "cuda") plan.fallback = candidates.front();
  const Clock::time_point settle_start = Clock::now();
  WholePlanTimer time_plans;
  if (plain_count < candidates.size()) {  // engines of their own, for their layouts
    const kernels::Tensor x = whole.x, labels = whole.labels;
    whole = {};
    screened = {};
    time_plans = [&, x, labels](const std::vector<LayerPlan>& plans) {
      return time_whole_plans(plans, config, spec, timing, x, labels);
    };
  } else {  // all NCHW: the measurement's engine and backends, each layer routed to its choice
    time_plans = [&](const std::vector<LayerPlan>& plans) {
      return median_steps(plans.size(), timing, [&](std::size_t i) {
        auto index_of = [&](const PlanChoice& choice) {
          return static_cast<std::size_t>(std::find(candidates.begin(), candidates.end(), choice) - candidates.begin());
        };
        std::vector<std::pair<std::string, kernels::Backend*>> routes;  // every choice is a candidate
        for (const LayerPlan::Row& row : plans[i].rows) routes.emplace_back(row.layer, backends.at(index_of(row.choice)));
        planned->release_threads();  // none left spinning by the plan before
        const std::size_t fallback = index_of(plans[i].fallback);
        planned->route_all(backends[fallback < candidates.size() ? fallback : 0], std::move(routes));
        whole.plain->train_step(whole.x, whole.labels, iteration++);
        planned->synchronize();
      });
    };
  }
  plan = settle_whole_plans(std::move(plan), plain_count, spec, time_plans);
  folded_rows(plan, plain_count);  // a whole plan may have given a folded layer a choice of its own
  const double settle_seconds = seconds_since(settle_start);
  plan.measure_seconds = seconds_since(start);
  plan.measure_note = measure_note(plan.measure_seconds, build_seconds, candidates, costs, all_steps, screen_seconds, settle_seconds);
  return plan;
}

std::string default_plan_cache() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/ablate/plans";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/ablate/plans";
  return ".ablate-plans";
}

PlanResolution resolve_plan(const RunConfig& config, const models::ModelSpec& spec) {
  const Clock::time_point start = Clock::now();
  PlanResolution r;
  const PlanKey key = plan_key(config, spec);
  if (config.plan == "auto") {
    const std::string cache = (config.plan_cache.empty() ? default_plan_cache() : config.plan_cache) + "/" + spec.name + ".plan";
    std::string why;
    if (std::optional<LayerPlan> cached = load_cached_plan(cache, key, why)) {
      r.plan = std::move(*cached);
      r.source = "cache " + cache;
    } else {
      r.note = why;
      r.plan = measure_plan(config, spec);
      write_plan_file(r.plan, cache);
      r.source = "measured (cached in " + cache + ")";
    }
  } else {
    r.plan = read_plan_file(config.plan);
    r.source = "file " + config.plan;
    const std::string difference = plan_key_difference(r.plan.key, key);
    if (!difference.empty()) r.note = "plan " + config.plan + " replayed although it was measured for another key: " + difference;
  }
  r.startup_s = seconds_since(start);
  return r;
}

}  // namespace ablate::bench::run
