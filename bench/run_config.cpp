// Resolution of a run's configuration: framework preset, then command-line overrides, then
// checks that name where a bad value came from.
#include "bench/run_config.h"
#include "bench/text_format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <thread>

#include "bench/distributed_run.h"
#include "bench/pass_spec.h"
#include "bench/run_timing.h"
#include "datasets/dataset_registry.h"
#include "graph/engine.h"
#include "kernels/registry.h"
#include "models/preset.h"

namespace ablate::bench {

std::vector<OptionSpec> run_options() {
  return {
      {"framework", "NAME", "caffe (default), tensorflow, torch, theano: picks the preset"},
      {"dataset", "NAME", "fashion-mnist (default), mnist, cifar10, synthetic, synthetic-cifar10, folder[:HxW] (your images)"},
      {"data", "DIR", "directory of the data files (default: where Debian installs fashion-mnist)"},
      {"preset", "NAME|FILE", "training recipe (default: FRAMEWORK-FAMILY, e.g. caffe-mnist)"},
      {"model", "NAME|FILE", "model file or zoo name (default: the preset's)"},
      {"strategy", "NAME", "layerwise (Caffe), dynamic (Torch), static (TensorFlow, Theano); default: the preset's"},
      {"backend", "NAME", "reference, eigen, openblas, onednn (default: the preset's)"},
      {"threads", "N", "intra-op threads for OpenMP, the BLAS and oneDNN (default: the preset's; 'all')"},
      {"precision", "f32|f64", "floating-point type of the run"},
      {"iterations", "N", "training iterations (overrides the preset's length)"},
      {"epochs", "X", "training length in epochs of the training set"},
      {"scale", "X", "multiply the training length (the preset's or the flags') by X, e.g. 0.05"},
      {"batch", "N", "training batch size"},
      {"lr", "X", "base learning rate"},
      {"lr-policy", "NAME", "fixed, inv, step, multistep, exp_staircase, torch_decay"},
      {"momentum", "X", "momentum"},
      {"weight-decay", "X", "weight decay (L2)"},
      {"transform", "SPEC", "training preprocessing rule (datasets/transforms.h), e.g. scale:1/255"},
      {"test-transform", "SPEC", "evaluation preprocessing rule (default: the training one)"},
      {"test-interval", "N", "test every N iterations (0: only at the end)"},
      {"test-interval-epochs", "X", "test every X epochs instead (Torch: 1)"},
      {"test-batch", "N", "test batch size"},
      {"test-iterations", "N", "test batches per test pass (0: the whole test set)"},
      {"validation-count", "N", "hold out the last N training images for validation (TF 5000, Theano 10000)"},
      {"validation-interval", "N", "validate every N iterations (0: never)"},
      {"patience", "N", "Theano's early stopping: stop once the iteration reaches the patience (0: off)"},
      {"patience-increase", "X", "on a clear improvement patience becomes iteration x X (Theano: 2)"},
      {"improvement-threshold", "X", "a clear improvement is an error below X x the best (Theano: 0.995)"},
      {"target-accuracy", "X", "report the training time at which a test first reaches X (0: none)"},
      {"train-accuracy-interval", "N", "evaluate the batch about to be trained every N steps (TF MNIST: 100)"},
      {"timing", "uniform|framework", "which training/testing times to print; both are recorded"},
      {"weight-average", "DECAY", "evaluate with an exponential moving average of the weights (TF: 0.9999; 0: off)"},
      {"caching-allocator", "on|off", "dynamic strategy: reuse freed blocks by size, as PyTorch"},
      {"per-sample", "", "dynamic strategy: forward/backward one sample at a time (Torch's CIFAR-10 script)"},
      {"passes", "SPEC", "static strategy: all, all,-cse,-elementwise_fusion, or a list to keep"},
      {"executor", "NAME", "static strategy: sequential or parallel (inter-op pool)"},
      {"inter-op-threads", "N", "static strategy: the parallel executor's threads ('all')"},
      {"seed", "N", "seed of initialization, shuffling and dropout"},
      {"distributed", "", "data-parallel over MPI ranks (mpirun -np N ablate run ...): --batch is the global batch"},
      {"allreduce", "mpi|ring", "distributed: gradient all-reduce, MPI_Allreduce or our ring (default mpi)"},
      {"bucket-mb", "X", "distributed: gradients are all-reduced in buckets of X MiB (default 25)"},
      {"out", "FILE", "append the result record (one JSON line) to FILE"},
      {"profile", "FILE", "write a Chrome trace (Perfetto, chrome://tracing) of every op and step to FILE"},
      {"no-memory-check", "", "train even if the memory estimate exceeds the available memory"},
      {"deterministic", "", "bit-identical repeated runs (same seed): an error if the backend cannot promise it"},
      {"check-gradients", "on|off", "stop as diverged when a gradient holds NaN or inf (default on)"},
      {"snapshot-every", "N", "write a snapshot every N iterations and at the end (default: only on SIGINT/SIGTERM)"},
      {"snapshot", "FILE", "the snapshot file (default: ablate-snapshot.ckpt)"},
      {"resume", "FILE", "continue the run saved in snapshot FILE (same configuration)"},
      {"quiet", "", "print only the summary"},
  };
}

int parse_thread_count(const std::string& text, const std::string& what) {
  if (text == "all") return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::int64_t n = parse_int(text, what);
  if (n < 1) throw std::invalid_argument(what + " " + text + ": expected a positive count or 'all'");
  return static_cast<int>(n);
}

bool parse_switch(const std::string& text, const std::string& what) {
  if (text == "on" || text == "true" || text == "1" || text == "yes") return true;
  if (text == "off" || text == "false" || text == "0" || text == "no") return false;
  throw std::invalid_argument(what + " " + text + ": expected on or off");
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

void apply_preset(RunConfig& c, const models::Preset& p, Origins& origins) {
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
  text("strategy", c.strategy);
  text("backend", c.backend);
  if (p.has("threads")) c.threads = parse_thread_count(p.get("threads"), where("threads"));
  text("precision", c.precision);
  text("optimizer", c.optimizer.type);
  c.optimizer.lr.base_lr = num("base_lr", c.optimizer.lr.base_lr);
  text("lr_policy", c.optimizer.lr.policy);
  c.optimizer.lr.gamma = num("gamma", c.optimizer.lr.gamma);
  c.optimizer.lr.power = num("power", c.optimizer.lr.power);
  c.optimizer.lr.stepsize = count("stepsize", c.optimizer.lr.stepsize);
  text("stepvalues", c.optimizer.lr.stepvalues);
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
  c.weight_average_decay = num("weight_average_decay", c.weight_average_decay);
  flag("per_sample", c.per_sample);
  flag("caching_allocator", c.caching_allocator);
  text("executor", c.executor);
  if (p.has("inter_op_threads")) c.inter_op_threads = parse_thread_count(p.get("inter_op_threads"), where("inter_op_threads"));
  text("passes", c.passes);
  if (p.has("seed")) c.seed = static_cast<std::uint64_t>(count("seed", 1));
}

// Flags override the preset; each records its origin under the preset key it overrides.
void apply_flags(RunConfig& c, const ParsedArgs& args, Origins& origins) {
  auto given = [&](const std::string& flag, const std::string& key) {
    if (!args.has(flag)) return false;
    origins.set(key, "--" + flag);
    return true;
  };
  const std::int64_t any = -(1LL << 62);  // range checks come later, naming the origin
  if (given("model", "model")) c.model = args.get("model");
  if (given("strategy", "strategy")) c.strategy = args.get("strategy");
  if (given("backend", "backend")) c.backend = args.get("backend");
  if (given("threads", "threads")) c.threads = parse_thread_count(args.get("threads"), "--threads");
  if (given("precision", "precision")) c.precision = args.get("precision");
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
  if (given("timing", "timing")) c.timing = args.get("timing");
  if (given("weight-average", "weight_average_decay")) c.weight_average_decay = args.get_double("weight-average", 0);
  if (given("caching-allocator", "caching_allocator"))
    c.caching_allocator = parse_switch(args.get("caching-allocator"), "--caching-allocator");
  if (given("per-sample", "per_sample")) c.per_sample = true;
  if (given("passes", "passes")) c.passes = args.get("passes");
  if (given("executor", "executor")) c.executor = args.get("executor");
  if (given("inter-op-threads", "inter_op_threads"))
    c.inter_op_threads = parse_thread_count(args.get("inter-op-threads"), "--inter-op-threads");
  if (given("seed", "seed")) c.seed = static_cast<std::uint64_t>(args.get_int("seed", 1, 0));
  c.out = args.get("out", "");
  c.profile = args.get("profile", "");
  c.snapshot = args.get("snapshot", c.snapshot);
  c.snapshot_every = args.get_int("snapshot-every", 0, 0);
  c.resume = args.get("resume", "");
  c.memory_check = !args.has("no-memory-check");
  c.deterministic = args.has("deterministic");
  if (args.has("check-gradients"))
    c.optimizer.check_gradients = parse_switch(args.get("check-gradients"), "--check-gradients");
  c.quiet = args.has("quiet");
}

// Every value in range, and the combinations that make sense; errors name the origin.
void check(RunConfig& c, Origins& origins) {
  auto fail = [&](const std::string& key, const std::string& value, const std::string& expected) {
    throw std::invalid_argument(origins.of(key) + " " + value + ": " + expected);
  };
  if (c.batch <= 0) fail("batch", std::to_string(c.batch), "expected a positive count (batch size)");
  if (c.test_batch <= 0) fail("test_batch", std::to_string(c.test_batch), "expected a positive count (test batch size)");
  if (c.optimizer.lr.base_lr <= 0 || !std::isfinite(c.optimizer.lr.base_lr))
    fail("base_lr", number(c.optimizer.lr.base_lr), "expected a positive learning rate");
  if (c.precision != "f32" && c.precision != "f64") fail("precision", "'" + c.precision + "'", "expected f32 or f64");
  try {
    graph::find_strategy(c.strategy);  // its error lists the strategies
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(origins.of("strategy") + ": " + e.what());
  }
  const auto backends = kernels::backend_names();
  if (std::find(backends.begin(), backends.end(), c.backend) == backends.end()) {
    try {
      kernels::make_backend(c.backend);  // its error lists the known backends
    } catch (const std::exception& e) {
      throw std::invalid_argument(origins.of("backend") + ": " + e.what());
    }
  }
  graph::validate(c.optimizer);
  if (c.test_interval_epochs < 0)
    fail("test_interval_epochs", number(c.test_interval_epochs), "expected a non-negative number of epochs");
  if (c.patience_increase < 0) fail("patience_increase", number(c.patience_increase), "expected a non-negative factor");
  if (!(c.improvement_threshold > 0 && c.improvement_threshold <= 1))
    fail("improvement_threshold", number(c.improvement_threshold), "expected a factor in (0, 1]");
  if (!(c.target_accuracy >= 0 && c.target_accuracy <= 1))
    fail("target_accuracy", number(c.target_accuracy), "expected an accuracy in [0, 1] (a fraction; 0: none)");
  if (!(c.weight_average_decay >= 0 && c.weight_average_decay < 1))
    fail("weight_average_decay", number(c.weight_average_decay), "expected a decay in [0, 1) (0: off)");
  graph::parse_executor(c.executor, origins.of("executor"));
  if (c.timing != "uniform" && c.timing != "framework") fail("timing", "'" + c.timing + "'", "expected uniform or framework");
  if (c.timing == "framework" && !has_framework_timing(c.framework))
    fail("timing", "framework", "framework '" + c.framework + "' has no timing rule (known: caffe, tensorflow, torch, theano)");
  if (c.validation_interval > 0 && c.validation_count == 0)
    fail("validation_interval", std::to_string(c.validation_interval),
         "validation needs held-out images, but " + origins.of("validation_count") + " is 0");
  if (c.patience > 0 && c.validation_interval == 0)
    fail("patience", std::to_string(c.patience),
         "early stopping needs validation passes, but " + origins.of("validation_interval") + " is 0");
  c.disabled_passes = disabled_passes(parse_pass_spec(c.passes, origins.of("passes")), static_pass_names(),
                                      origins.of("passes"));

  // Strategy switches (the table of strategies, graph/engine.h): a flag the strategy does not
  // use is an error; a preset's is recorded.
  for (const graph::StrategyInfo& s : graph::strategies())
    for (const graph::StrategySwitch& sw : s.switches) {
      if (!origins.given(sw.key) || c.strategy == s.name) continue;
      if (origins.from_flag(sw.key))
        throw std::invalid_argument(origins.of(sw.key) + ": the " + c.strategy + " strategy does not use it (only " +
                                    s.name + " does)");
      c.unused_options.push_back(sw.key);
    }
}

}  // namespace

void apply_length_scale(RunConfig& c, double scale) {
  if (!(scale > 0) || !std::isfinite(scale))
    throw std::invalid_argument("--scale " + number(scale) + ": expected a positive factor");
  if (c.epochs > 0) c.epochs *= scale;
  else c.iterations = std::max<std::int64_t>(1, std::llround(static_cast<double>(c.iterations) * scale));
  c.length_scale *= scale;
}

RunConfig resolve_run_config(const ParsedArgs& args) {
  RunConfig c;
  Origins origins;
  c.framework = args.get("framework", "caffe");
  c.dataset = args.get("dataset", "fashion-mnist");
  c.data_dir = args.get("data", "");
  std::string family = datasets::dataset_family(c.dataset, c.data_dir);  // throws on an unknown data set
  c.preset = args.get("preset", models::preset_name(c.framework, family));
  apply_preset(c, models::load_preset(c.preset), origins);
  if (c.framework == "tensorflow" && family == "mnist") {
    c.train_accuracy_interval = 100;  // mnist_deep.py: `if i % 100 == 0: train_accuracy = accuracy.eval(...)`
    origins.set("train_accuracy_interval", "train_accuracy_interval (TensorFlow's MNIST script)");
  }
  apply_flags(c, args, origins);
  check(c, origins);
  resolve_distributed(c, args);
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

}  // namespace ablate::bench
