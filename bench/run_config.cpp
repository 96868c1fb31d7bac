// Resolution of a run's configuration: framework preset, then command-line overrides.
#include "bench/run_config.h"

#include <cmath>
#include <stdexcept>
#include <thread>

#include "datasets/dataset_registry.h"
#include "kernels/registry.h"
#include "models/preset.h"

namespace ablate::bench {

std::vector<OptionSpec> run_options() {
  return {
      {"framework", "NAME", "caffe (default); tensorflow, torch, theano once their strategies land"},
      {"dataset", "NAME", "fashion-mnist (default), mnist, cifar10, synthetic, folder[:HxW] (your images)"},
      {"data", "DIR", "directory of the data files (default: where Debian installs fashion-mnist)"},
      {"preset", "NAME|FILE", "training recipe (default: FRAMEWORK-FAMILY, e.g. caffe-mnist)"},
      {"model", "NAME|FILE", "model file or zoo name (default: the preset's)"},
      {"strategy", "NAME", "layerwise (default for caffe); dynamic and static are not built yet"},
      {"backend", "NAME", "reference, eigen, openblas, onednn (default: the preset's)"},
      {"threads", "N", "intra-op threads for OpenMP, the BLAS and oneDNN (default: the preset's; 'all')"},
      {"precision", "f32|f64", "floating-point type of the run"},
      {"iterations", "N", "training iterations (overrides the preset's length)"},
      {"epochs", "X", "training length in epochs of the training set"},
      {"batch", "N", "training batch size"},
      {"lr", "X", "base learning rate"},
      {"lr-policy", "NAME", "fixed, inv, step, multistep, exp_staircase, torch_decay"},
      {"momentum", "X", "momentum"},
      {"weight-decay", "X", "weight decay (L2)"},
      {"test-interval", "N", "test every N iterations (0: only at the end)"},
      {"test-batch", "N", "test batch size"},
      {"test-iterations", "N", "test batches per test pass (0: the whole test set)"},
      {"seed", "N", "seed of initialization, shuffling and dropout"},
      {"out", "FILE", "append the result record (one JSON line) to FILE"},
      {"quiet", "", "print only the summary"},
  };
}

namespace {

int resolve_threads(const std::string& text, const std::string& what) {
  if (text == "all") return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::int64_t n = parse_int(text, what);
  if (n < 1) throw std::invalid_argument(what + " " + text + ": expected a positive count or 'all'");
  return static_cast<int>(n);
}

bool parse_bool(const std::string& text, const std::string& what) {
  if (text == "true" || text == "1" || text == "yes") return true;
  if (text == "false" || text == "0" || text == "no") return false;
  throw std::invalid_argument(what + " " + text + ": expected true or false");
}

void apply_preset(RunConfig& c, const models::Preset& p) {
  auto where = [&](const std::string& key) {
    auto it = p.lines.find(key);
    return p.source + ":" + (it == p.lines.end() ? std::string("?") : std::to_string(it->second)) + ": " + key;
  };
  auto num = [&](const std::string& key, double fallback) {
    return p.has(key) ? parse_double(p.get(key), where(key)) : fallback;
  };
  auto count = [&](const std::string& key, std::int64_t fallback) {
    return p.has(key) ? parse_int(p.get(key), where(key)) : fallback;
  };
  if (p.has("framework")) c.framework = p.get("framework");
  if (p.has("model")) c.model = p.get("model");
  if (p.has("strategy")) c.strategy = p.get("strategy");
  if (p.has("backend")) c.backend = p.get("backend");
  if (p.has("threads")) c.threads = resolve_threads(p.get("threads"), where("threads"));
  if (p.has("precision")) c.precision = p.get("precision");
  if (p.has("optimizer")) c.optimizer.type = p.get("optimizer");
  c.optimizer.lr.base_lr = num("base_lr", c.optimizer.lr.base_lr);
  if (p.has("lr_policy")) c.optimizer.lr.policy = p.get("lr_policy");
  c.optimizer.lr.gamma = num("gamma", c.optimizer.lr.gamma);
  c.optimizer.lr.power = num("power", c.optimizer.lr.power);
  c.optimizer.lr.stepsize = count("stepsize", c.optimizer.lr.stepsize);
  if (p.has("stepvalues")) c.optimizer.lr.stepvalues = p.get("stepvalues");
  c.optimizer.momentum = num("momentum", c.optimizer.momentum);
  c.optimizer.weight_decay = num("weight_decay", c.optimizer.weight_decay);
  c.optimizer.dampening = num("dampening", c.optimizer.dampening);
  c.batch = count("batch", c.batch);
  c.iterations = count("iterations", c.iterations);
  c.epochs = num("epochs", c.epochs);
  c.test_interval = count("test_interval", c.test_interval);
  c.test_batch = count("test_batch", c.test_batch);
  c.test_iterations = count("test_iterations", c.test_iterations);
  if (p.has("transform")) c.transform = p.get("transform");
  if (p.has("shuffle")) c.shuffle = parse_bool(p.get("shuffle"), where("shuffle"));
  if (p.has("seed")) c.seed = static_cast<std::uint64_t>(count("seed", 1));
}

}  // namespace

RunConfig resolve_run_config(const ParsedArgs& args) {
  RunConfig c;
  c.framework = args.get("framework", "caffe");
  c.dataset = args.get("dataset", "fashion-mnist");
  c.data_dir = args.get("data", "");
  std::string family = datasets::dataset_family(c.dataset, c.data_dir);  // throws on an unknown data set
  c.preset = args.get("preset", models::preset_name(c.framework, family));
  apply_preset(c, models::load_preset(c.preset));

  if (args.has("model")) c.model = args.get("model");
  if (args.has("strategy")) c.strategy = args.get("strategy");
  if (args.has("backend")) c.backend = args.get("backend");
  if (args.has("threads")) c.threads = resolve_threads(args.get("threads"), "--threads");
  if (args.has("precision")) c.precision = args.get("precision");
  if (args.has("iterations")) {
    c.iterations = args.get_int("iterations", 0, 0);
    c.epochs = 0;
  }
  if (args.has("epochs")) {
    c.epochs = args.get_double("epochs", 0);
    if (c.epochs <= 0) throw std::invalid_argument("--epochs " + args.get("epochs") + ": expected a positive number");
    c.iterations = 0;
  }
  if (args.has("batch")) c.batch = args.get_int("batch", 0, -(1LL << 62));
  if (args.has("lr")) c.optimizer.lr.base_lr = args.get_double("lr", 0);
  if (args.has("lr-policy")) c.optimizer.lr.policy = args.get("lr-policy");
  if (args.has("momentum")) c.optimizer.momentum = args.get_double("momentum", 0);
  if (args.has("weight-decay")) c.optimizer.weight_decay = args.get_double("weight-decay", 0);
  c.test_interval = args.get_int("test-interval", c.test_interval, 0);
  c.test_batch = args.get_int("test-batch", c.test_batch, -(1LL << 62));
  c.test_iterations = args.get_int("test-iterations", c.test_iterations, 0);
  if (args.has("seed")) c.seed = static_cast<std::uint64_t>(args.get_int("seed", 1, 0));
  c.out = args.get("out", "");
  c.quiet = args.has("quiet");

  if (c.batch <= 0)
    throw std::invalid_argument("batch size " + std::to_string(c.batch) + ": expected a positive count");
  if (c.test_batch <= 0)
    throw std::invalid_argument("test batch size " + std::to_string(c.test_batch) + ": expected a positive count");
  if (c.optimizer.lr.base_lr <= 0 || !std::isfinite(c.optimizer.lr.base_lr))
    throw std::invalid_argument("learning rate " + std::to_string(c.optimizer.lr.base_lr) + ": expected a positive number");
  if (c.precision != "f32" && c.precision != "f64")
    throw std::invalid_argument("precision '" + c.precision + "': expected f32 or f64");
  bool known_strategy = false;
  for (const auto& s : {"layerwise", "dynamic", "static"}) known_strategy |= c.strategy == s;
  if (!known_strategy)
    throw std::invalid_argument("strategy '" + c.strategy + "' is not known; the strategies are: layerwise, dynamic, static");
  bool known_backend = false;
  for (const auto& b : kernels::backend_names()) known_backend |= c.backend == b;
  if (!known_backend) kernels::make_backend(c.backend);  // throws listing the known backends
  graph::validate(c.optimizer);
  return c;
}

void resolve_length(RunConfig& c, std::int64_t train_count) {
  if (c.epochs > 0) c.iterations = static_cast<std::int64_t>(std::ceil(c.epochs * train_count / c.batch));
  if (c.iterations <= 0)
    throw std::invalid_argument("training length: " + std::to_string(c.iterations) +
                                " iterations; give --iterations N or --epochs X");
}

}  // namespace ablate::bench
