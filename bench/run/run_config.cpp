// Resolution of a run's configuration: framework preset, then command-line overrides, then
// checks that name where a bad value came from.
#include "bench/run/run_config.h"
#include "bench/run/text_format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <stdexcept>

#include "bench/run/distributed_run.h"
#include "bench/run/pass_spec.h"
#include "bench/run/run_timing.h"
#include "datasets/dataset_registry.h"
#include "graph/engine.h"
#include "kernels/registry.h"
#include "models/preset.h"

namespace ablate::bench::run {

kernels::DType parse_precision(const std::string& text, const std::string& what) {
  if (text == "f32") return kernels::DType::f32;
  if (text == "f64") return kernels::DType::f64;
  throw std::invalid_argument(what + " '" + text + "': expected f32 or f64");
}

namespace {

// Where each value came from, keyed by its preset key: "--patience" or
// "<presets>/theano-mnist.preset:21: patience". Errors start with it.
class Origins {
 public:
  void set(const std::string& key, const std::string& where) { map_[key] = where; }
  std::string of(const std::string& key) const {
    auto it = map_.find(key);
    return it == map_.end() ? key + " (default)" : it->second;
  }
  bool given(const std::string& key) const { return map_.count(key) != 0; }
  bool from_flag(const std::string& key) const { return given(key) && map_.at(key).rfind("--", 0) == 0; }

 private:
  std::map<std::string, std::string> map_;
};

// Names checked once every source has applied (a preset's bad name that a flag replaces is no
// error), then parsed into RunConfig's typed fields.
struct Names {
  std::string strategy, precision = "f32", executor = "sequential", timing = "uniform";
  // empty: the backend's default
  std::string conv_mode, conv_lowering, threading, onednn_conv_layout, pool_gradient;
};

// The backend's own switches (kernels::BackendOptions): parsed, then checked against the
// chosen backend. A switch the backend does not take is an error when it came as a flag
// ("--onednn-conv-layout: onednn_conv_layout 'nhwc' is an option of the onednn backend, not of
// 'openblas'"), and recorded as unused when it came from the preset, as strategy switches are.
void apply_backend_options(RunConfig& c, const Names& names, Origins& origins) {
  kernels::BackendOptions& o = c.backend.options;
  auto parsed = [&](const std::string& key, const std::string& text, auto parse) {
    try {
      return parse(text);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(origins.of(key) + ": " + e.what());
    }
  };
  if (!names.conv_mode.empty()) o.conv_mode = parsed("conv_mode", names.conv_mode, kernels::parse_conv_mode);
  if (!names.conv_lowering.empty())
    o.conv_lowering = parsed("conv_lowering", names.conv_lowering, kernels::parse_conv_lowering);
  if (!names.threading.empty()) o.threading = parsed("threading", names.threading, kernels::parse_threading);
  if (!names.onednn_conv_layout.empty())
    o.onednn_conv_layout = parsed("onednn_conv_layout", names.onednn_conv_layout, kernels::parse_conv_layout);
  if (!names.pool_gradient.empty())
    o.pool_gradient = parsed("pool_gradient", names.pool_gradient, kernels::parse_pool_gradient);
  // conv_mode names a lowering and a threading: given as a flag it replaces the preset's pair,
  // and a flag of the pair replaces the preset's conv_mode.
  const bool pair_flag = origins.from_flag("conv_lowering") || origins.from_flag("threading");
  if (origins.from_flag("conv_mode") && !pair_flag) o.conv_lowering.reset(), o.threading.reset();
  if (pair_flag && !origins.from_flag("conv_mode")) o.conv_mode.reset();
  const auto taken = kernels::backend_options_of(c.backend.name);
  auto drop_if_unfit = [&](kernels::BackendOption option, const std::string& key, auto& field) {
    if (!field) return;
    const std::string problem = kernels::option_problem(c.backend.name, o, option);
    if (problem.empty()) return;
    if (origins.from_flag(key)) {
      if (std::find(taken.begin(), taken.end(), option) != taken.end())
        throw std::invalid_argument(origins.of(key) + ": " + problem);
      throw std::invalid_argument(origins.of(key) + ": " + kernels::describe_option(o, option) +
                                  " is not an option of the " + c.backend.name + " backend (the backends that take it: " +
                                  join(kernels::backends_taking(option), ", ") + ")");
    }
    field.reset();
    c.unused_options.push_back(key);
  };
  drop_if_unfit(kernels::BackendOption::conv_mode, "conv_mode", o.conv_mode);
  drop_if_unfit(kernels::BackendOption::conv_lowering, "conv_lowering", o.conv_lowering);
  drop_if_unfit(kernels::BackendOption::threading, "threading", o.threading);
  drop_if_unfit(kernels::BackendOption::onednn_conv_layout, "onednn_conv_layout", o.onednn_conv_layout);
  drop_if_unfit(kernels::BackendOption::pool_gradient, "pool_gradient", o.pool_gradient);
  kernels::check_backend_options(c.backend.name, o);
}

void apply_preset(RunConfig& c, Names& names, const models::Preset& p, Origins& origins) {
  auto where = [&](const std::string& key) {
    auto it = p.lines.find(key);
    return p.source + ":" + (it == p.lines.end() ? std::string("?") : std::to_string(it->second)) + ": " + key;
  };
  for (const auto& [key, value] : p.values) origins.set(key, where(key));
  auto num = [&](const std::string& key, double fallback) {
    return p.has(key) ? parse_double(p.get(key), where(key)) : fallback;
  };
  auto count = [&](const std::string& key, std::int64_t fallback) {
    return p.has(key) ? parse_int(p.get(key), where(key)) : fallback;
  };
  auto text = [&](const std::string& key, std::string& field) {
    if (p.has(key)) field = p.get(key);
  };
  auto flag = [&](const std::string& key, bool& field) {
    if (p.has(key)) field = parse_switch(p.get(key), where(key));
  };
  text("framework", c.framework);
  text("model", c.model);
  text("strategy", names.strategy);
  text("backend", c.backend.name);
  if (p.has("threads")) c.backend.options.threads = parse_thread_count(p.get("threads"), where("threads"));
  text("conv_mode", names.conv_mode);
  text("conv_lowering", names.conv_lowering);
  text("threading", names.threading);
  text("onednn_conv_layout", names.onednn_conv_layout);
  text("pool_gradient", names.pool_gradient);
  text("precision", names.precision);
  if (p.has("malloc")) c.malloc_policy = parse_malloc_policy(p.get("malloc"), where("malloc"));
  if (p.has("huge_pages")) c.huge_pages = kernels::parse_huge_pages(p.get("huge_pages"), where("huge_pages"));
  text("optimizer", c.optimizer.type);
  c.optimizer.lr.base_lr = num("base_lr", c.optimizer.lr.base_lr);
  text("lr_policy", c.optimizer.lr.policy);
  c.optimizer.lr.gamma = num("gamma", c.optimizer.lr.gamma);
  c.optimizer.lr.power = num("power", c.optimizer.lr.power);
  c.optimizer.lr.stepsize = count("stepsize", c.optimizer.lr.stepsize);
  text("stepvalues", c.optimizer.lr.stepvalues);
  c.optimizer.lr.warmup = count("warmup", c.optimizer.lr.warmup);
  c.optimizer.lr.max_iter = count("max_iter", c.optimizer.lr.max_iter);
  c.optimizer.momentum = num("momentum", c.optimizer.momentum);
  c.optimizer.weight_decay = num("weight_decay", c.optimizer.weight_decay);
  c.optimizer.dampening = num("dampening", c.optimizer.dampening);
  c.batch = count("batch", c.batch);
  c.iterations = count("iterations", c.iterations);
  c.epochs = num("epochs", c.epochs);
  c.test_interval = count("test_interval", c.test_interval);
  c.test_interval_epochs = num("test_interval_epochs", c.test_interval_epochs);
  if (c.test_interval > 0 && c.test_interval_epochs > 0)
    throw std::invalid_argument(where("test_interval_epochs") + ": give test_interval or test_interval_epochs, not both (" +
                                where("test_interval") + ")");
  c.test_batch = count("test_batch", c.test_batch);
  c.test_iterations = count("test_iterations", c.test_iterations);
  text("transform", c.transform);
  text("test_transform", c.test_transform);
  flag("shuffle", c.shuffle);
  c.validation_count = count("validation_count", c.validation_count);
  c.validation_interval = count("validation_interval", c.validation_interval);
  c.patience = count("patience", c.patience);
  c.patience_increase = num("patience_increase", c.patience_increase);
  c.improvement_threshold = num("improvement_threshold", c.improvement_threshold);
  c.target_accuracy = num("target_accuracy", c.target_accuracy);
  StrategySwitches& s = c.switches;
  s.weight_average_decay = num("weight_average_decay", s.weight_average_decay);
  flag("per_sample", s.per_sample);
  flag("caching_allocator", s.caching_allocator);
  flag("blocked_layout", s.blocked_layout);
  text("executor", names.executor);
  if (p.has("inter_op_threads")) s.inter_op_threads = parse_thread_count(p.get("inter_op_threads"), where("inter_op_threads"));
  text("passes", s.passes);
  if (p.has("seed")) c.seed = static_cast<std::uint64_t>(count("seed", 1));
}

// Flags override the preset; each records its origin under the preset key it overrides.
void apply_flags(RunConfig& c, Names& names, const Flags& args, Origins& origins) {
  auto given = [&](const std::string& flag, const std::string& key) {
    if (!args.has(flag)) return false;
    origins.set(key, "--" + flag);
    return true;
  };
  const std::int64_t any = -(1LL << 62);  // range checks come later, naming the origin
  if (given("model", "model")) c.model = args.get("model");
  if (given("strategy", "strategy")) names.strategy = args.get("strategy");
  if (given("backend", "backend")) c.backend.name = args.get("backend");
  if (given("plan", "plan")) c.plan = args.get("plan") == "off" ? "" : args.get("plan");
  if (given("plan-cache", "plan_cache")) c.plan_cache = args.get("plan-cache");
  if (given("plan-threading", "plan_threading")) c.plan_threading = args.get("plan-threading");
  if (given("threads", "threads")) {
    c.backend.options.threads = parse_thread_count(args.get("threads"), "--threads");
    warn_if_oversubscribed(c.backend.options.threads, "--threads");
  }
  if (given("conv-mode", "conv_mode")) names.conv_mode = args.get("conv-mode");
  if (given("conv-lowering", "conv_lowering")) names.conv_lowering = args.get("conv-lowering");
  if (given("threading", "threading")) names.threading = args.get("threading");
  if (given("onednn-conv-layout", "onednn_conv_layout")) names.onednn_conv_layout = args.get("onednn-conv-layout");
  if (given("pool-gradient", "pool_gradient")) names.pool_gradient = args.get("pool-gradient");
  if (given("precision", "precision")) names.precision = args.get("precision");
  if (given("iterations", "iterations")) {
    c.iterations = args.get_int("iterations", 0, 0);
    c.epochs = 0;
  }
  if (given("epochs", "epochs")) {
    c.epochs = args.get_double("epochs", 0);
    if (c.epochs <= 0) throw std::invalid_argument("--epochs " + args.get("epochs") + ": expected a positive number");
    c.iterations = 0;
  }
  if (given("batch", "batch")) c.batch = args.get_int("batch", 0, any);
  if (given("lr", "base_lr")) c.optimizer.lr.base_lr = args.get_double("lr", 0);
  if (given("lr-policy", "lr_policy")) c.optimizer.lr.policy = args.get("lr-policy");
  if (given("optimizer", "optimizer")) c.optimizer.type = args.get("optimizer");
  if (given("warmup", "warmup")) c.optimizer.lr.warmup = args.get_int("warmup", 0, 0);
  if (given("max-iter", "max_iter")) c.optimizer.lr.max_iter = args.get_int("max-iter", 0, 1);
  if (given("momentum", "momentum")) c.optimizer.momentum = args.get_double("momentum", 0);
  if (given("weight-decay", "weight_decay")) c.optimizer.weight_decay = args.get_double("weight-decay", 0);
  if (given("transform", "transform")) c.transform = args.get("transform");
  if (given("test-transform", "test_transform")) c.test_transform = args.get("test-transform");
  if (given("test-interval", "test_interval")) {
    c.test_interval = args.get_int("test-interval", 0, 0);
    c.test_interval_epochs = 0;
  }
  if (given("test-interval-epochs", "test_interval_epochs")) {
    c.test_interval_epochs = args.get_double("test-interval-epochs", 0);
    c.test_interval = 0;
  }
  if (given("test-batch", "test_batch")) c.test_batch = args.get_int("test-batch", 0, any);
  if (given("test-iterations", "test_iterations")) c.test_iterations = args.get_int("test-iterations", 0, 0);
  if (given("validation-count", "validation_count")) c.validation_count = args.get_int("validation-count", 0, 0);
  if (given("validation-interval", "validation_interval"))
    c.validation_interval = args.get_int("validation-interval", 0, 0);
  if (given("patience", "patience")) c.patience = args.get_int("patience", 0, 0);
  if (given("patience-increase", "patience_increase")) c.patience_increase = args.get_double("patience-increase", 0);
  if (given("improvement-threshold", "improvement_threshold"))
    c.improvement_threshold = args.get_double("improvement-threshold", 0);
  if (given("target-accuracy", "target_accuracy")) c.target_accuracy = args.get_double("target-accuracy", 0);
  if (given("train-accuracy-interval", "train_accuracy_interval"))
    c.train_accuracy_interval = args.get_int("train-accuracy-interval", 0, 0);
  if (given("timing", "timing")) names.timing = args.get("timing");
  StrategySwitches& s = c.switches;
  if (given("weight-average", "weight_average_decay")) s.weight_average_decay = args.get_double("weight-average", 0);
  if (given("caching-allocator", "caching_allocator"))
    s.caching_allocator = parse_switch(args.get("caching-allocator"), "--caching-allocator");
  if (given("per-sample", "per_sample")) s.per_sample = true;
  if (given("blocked-layout", "blocked_layout"))
    s.blocked_layout = parse_switch(args.get("blocked-layout"), "--blocked-layout");
  if (given("passes", "passes")) s.passes = args.get("passes");
  if (given("executor", "executor")) names.executor = args.get("executor");
  if (given("inter-op-threads", "inter_op_threads")) {
    s.inter_op_threads = parse_thread_count(args.get("inter-op-threads"), "--inter-op-threads");
    warn_if_oversubscribed(s.inter_op_threads, "--inter-op-threads");
  }
  if (given("malloc", "malloc")) c.malloc_policy = parse_malloc_policy(args.get("malloc"), "--malloc");
  if (given("huge-pages", "huge_pages")) c.huge_pages = kernels::parse_huge_pages(args.get("huge-pages"), "--huge-pages");
  if (given("seed", "seed")) c.seed = static_cast<std::uint64_t>(args.get_int("seed", 1, 0));
  c.out = args.get("out", "");
  c.profile = args.get("profile", "");
  c.snapshot = args.get("snapshot", c.snapshot);
  c.snapshot_every = args.get_int("snapshot-every", 0, 0);
  c.resume = args.get("resume", "");
  c.snapshot_initial = args.get("snapshot-initial", "");
  if (!c.snapshot_initial.empty() && !c.resume.empty())
    throw std::invalid_argument("--snapshot-initial " + c.snapshot_initial + " with --resume " + c.resume +
                                ": a resumed run has no initial weights to write; give one of them");
  c.curve_every = args.get_int("curve-every", c.curve_every, 1);
  c.curve_points = args.get_int("curve-points", c.curve_points, 0);
  if (c.curve_points > RunConfig::kMaxCurvePoints)
    throw std::invalid_argument("--curve-points " + args.get("curve-points") + ": expected 0 to " +
                                std::to_string(RunConfig::kMaxCurvePoints));
  if (given("no-random", "no_random")) c.no_random = true;
  c.memory_check = !args.has("no-memory-check");
  c.backend.options.deterministic = args.has("deterministic");
  if (args.has("check-gradients"))
    c.optimizer.check_gradients = parse_switch(args.get("check-gradients"), "--check-gradients");
  c.quiet = args.has("quiet");
}

// Every value in range, and the combinations that make sense; errors name the origin.
void check(RunConfig& c, const Names& names, Origins& origins) {
  auto fail = [&](const std::string& key, const std::string& value, const std::string& expected) {
    throw std::invalid_argument(origins.of(key) + " " + value + ": " + expected);
  };
  if (c.batch <= 0) fail("batch", std::to_string(c.batch), "expected a positive count (batch size)");
  if (c.test_batch <= 0) fail("test_batch", std::to_string(c.test_batch), "expected a positive count (test batch size)");
  if (c.optimizer.lr.base_lr <= 0 || !std::isfinite(c.optimizer.lr.base_lr))
    fail("base_lr", number(c.optimizer.lr.base_lr), "expected a positive learning rate");
  c.precision = parse_precision(names.precision, origins.of("precision"));
  c.strategy = parse_strategy(names.strategy, origins.of("strategy"));
  check_backend_name(c.backend.name, origins.of("backend"));
  apply_backend_options(c, names, origins);
  if (c.plan_threading != "measure" && c.plan_threading != "run")
    fail("plan_threading", c.plan_threading, "expected measure (a threading per layer) or run (the run's --threading)");
  if (!c.plan.empty() && c.backend.name == "cuda")
    fail("plan", c.plan, "a plan mixes host backends per layer; --backend cuda runs on the GPU (leave out --plan)");
  graph::validate(c.optimizer);
  if (c.test_interval_epochs < 0)
    fail("test_interval_epochs", number(c.test_interval_epochs), "expected a non-negative number of epochs");
  if (c.patience_increase < 0) fail("patience_increase", number(c.patience_increase), "expected a non-negative factor");
  if (!(c.improvement_threshold > 0 && c.improvement_threshold <= 1))
    fail("improvement_threshold", number(c.improvement_threshold), "expected a factor in (0, 1]");
  if (!(c.target_accuracy >= 0 && c.target_accuracy <= 1))
    fail("target_accuracy", number(c.target_accuracy), "expected an accuracy in [0, 1] (a fraction; 0: none)");
  StrategySwitches& s = c.switches;
  if (!(s.weight_average_decay >= 0 && s.weight_average_decay < 1))
    fail("weight_average_decay", number(s.weight_average_decay), "expected a decay in [0, 1) (0: off)");
  s.executor = graph::parse_executor(names.executor, origins.of("executor"));
  c.timing = parse_timing(names.timing, origins.of("timing"));
  if (c.timing == Timing::framework && !has_framework_timing(c.framework))
    fail("timing", "framework", "framework '" + c.framework + "' has no timing rule (known: caffe, tensorflow, torch, theano)");
  if (c.validation_interval > 0 && c.validation_count == 0)
    fail("validation_interval", std::to_string(c.validation_interval),
         "validation needs held-out images, but " + origins.of("validation_count") + " is 0");
  if (c.patience > 0 && c.validation_interval == 0)
    fail("patience", std::to_string(c.patience),
         "early stopping needs validation passes, but " + origins.of("validation_interval") + " is 0");
  if (c.no_random) {
    switch_random_off(c, origins.of("transform"));
    origins.set("shuffle", "--no-random");
  }
  s.disabled_passes = disabled_passes(parse_pass_spec(s.passes, origins.of("passes")), static_pass_names(),
                                      origins.of("passes"));

  // Strategy switches (the table of strategies, graph/engine.h): a flag the strategy does not
  // use is an error; a preset's is recorded.
  std::set<std::string> seen;  // a switch of two strategies (blocked_layout) is checked once
  for (const graph::StrategyInfo& info : graph::strategies())
    for (const graph::StrategySwitch& sw : info.switches) {
      if (!seen.insert(sw.key).second) continue;
      const std::vector<std::string> users = graph::strategies_using(sw.key);
      if (!origins.given(sw.key) || std::find(users.begin(), users.end(), c.strategy) != users.end()) continue;
      if (origins.from_flag(sw.key)) {
        std::string who;
        for (std::size_t k = 0; k < users.size(); ++k) who += (k ? " and " : "") + users[k];
        throw std::invalid_argument(origins.of(sw.key) + ": the " + c.strategy + " strategy does not use it (only " +
                                    who + (users.size() > 1 ? " do)" : " does)"));
      }
      c.unused_options.push_back(sw.key);
    }
}

}  // namespace

bool has_random_rule(const std::string& spec) {
  for (std::size_t start = 0; start <= spec.size();) {
    const std::size_t end = std::min(spec.find('+', start), spec.size());
    if (spec.compare(start, 7, "random_") == 0) return true;
    start = end + 1;
  }
  return false;
}

void switch_random_off(RunConfig& c, const std::string& transform_origin) {
  c.no_random = true;
  c.shuffle = false;
  if (!has_random_rule(c.transform)) return;
  if (c.test_transform.empty() || has_random_rule(c.test_transform))
    throw std::invalid_argument("--no-random: the training transform '" + c.transform + "' (" + transform_origin +
                                ") has random rules and there is no deterministic test transform to use instead; "
                                "give --transform without random_* rules");
  c.transform = c.test_transform;
}

void apply_length_scale(RunConfig& c, double scale) {
  if (!(scale > 0) || !std::isfinite(scale))
    throw std::invalid_argument("--scale " + number(scale) + ": expected a positive factor");
  if (c.epochs > 0) c.epochs *= scale;
  else c.iterations = std::max<std::int64_t>(1, std::llround(static_cast<double>(c.iterations) * scale));
  c.length_scale *= scale;
}

RunConfig resolve_run_config(const Flags& args) {
  RunConfig c;
  Names names;
  Origins origins;
  c.framework = args.get("framework", "caffe");
  c.dataset = args.get("dataset", "fashion-mnist");
  c.data_dir = args.get("data", "");
  std::string family = datasets::dataset_family(c.dataset, c.data_dir);  // throws on an unknown data set
  c.preset = args.get("preset", models::preset_name(c.framework, family));
  apply_preset(c, names, models::load_preset(c.preset), origins);
  if (c.framework == "tensorflow" && family == "mnist") {
    c.train_accuracy_interval = 100;  // mnist_deep.py: `if i % 100 == 0: train_accuracy = accuracy.eval(...)`
    origins.set("train_accuracy_interval", "train_accuracy_interval (TensorFlow's MNIST script)");
  }
  apply_flags(c, names, args, origins);
  check(c, names, origins);
  read_distributed_flags(c, args);
  if (args.has("scale")) apply_length_scale(c, args.get_double("scale", 1));
  return c;
}

void resolve_length(RunConfig& c, std::int64_t train_count) {
  if (c.epochs > 0)
    c.iterations = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(c.epochs * static_cast<double>(train_count) /
                                                                                     static_cast<double>(c.batch) - 1e-9)));
  if (c.iterations <= 0)
    throw std::invalid_argument("training length: " + std::to_string(c.iterations) +
                                " iterations; give --iterations N or --epochs X");
}

}  // namespace ablate::bench::run
