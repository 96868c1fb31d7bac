// Engine: what every execution strategy (layer-wise as Caffe, dynamic tape as Torch,
// static graph as TensorFlow and Theano) offers the training loop. An engine is built from a
// checked model (models::CheckedModel) over one Backend and owns its parameters, gradients
// and optimizer state. The table of strategies (engine_registry.cpp, as kernels/registry.cpp
// is the table of backends) names each strategy, its builder and the switches it uses; it
// checks the options once, before any strategy builds.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "graph/optim/optimizer_config.h"
#include "kernels/backend.h"
#include "models/checked_model.h"

namespace ablate::graph {

class Optimizer;
class WeightAverage;
namespace distributed {
class GradientAverager;
}

// A learnable tensor with its gradient and its per-parameter multipliers
// (Caffe's lr_mult and decay_mult; biases of Caffe's models learn at 2x).
struct Parameter {
  std::string name;  // "conv1.weight", "conv1.bias"
  kernels::Tensor value, grad;
  double lr_mult = 1.0, decay_mult = 1.0;
};

// A tensor of model state that training changes but the optimizer does not: BatchNorm's
// running statistics (models::LayerShapes::state; PyTorch's buffers, TF's non-trainable
// moving_mean / moving_variance, Caffe's BatchNorm blobs held at lr_mult 0). Not trained, not
// weight-decayed, not averaged by the WeightAverage; saved in checkpoints, and averaged over
// the ranks of a data-parallel run. `value` shares the engine's storage.
struct StateTensor {
  std::string name;  // "bn1.running_mean", as models::make_initial_state names it
  kernels::Tensor value;
};

// The static strategy's executor: one node after another (Theano's VM, TF with one inter-op
// thread), or TensorFlow's inter-op thread pool (graph/static/executor.h).
enum class ExecutorKind { sequential, parallel };
const char* executor_name(ExecutorKind kind);  // "sequential", "parallel"
// Throws std::invalid_argument "<what> 'x' is not known; expected sequential or parallel".
ExecutorKind parse_executor(const std::string& text, const std::string& what = "executor");

struct EngineOptions {
  kernels::DType dtype = kernels::DType::f32;
  std::int64_t batch = 64;       // training batch; evaluation may use another size
  std::uint64_t seed = 1;        // initialization and dropout
  // The place of this engine's first training sample in the global batch: 0, or a
  // data-parallel rank's slice offset (rank x local batch). Dropout masks number their
  // elements from there (graph/dropout_seed.h), so a slice draws the mask the single-process
  // run draws for the same samples.
  std::int64_t first_sample = 0;
  OptimizerConfig optimizer;
  // Evaluation with an exponential moving average of the weights (TF's
  // ExponentialMovingAverage, decay 0.9999 in the CIFAR-10 tutorial); 0: the weights as trained.
  double weight_average_decay = 0;

  // --- layer-wise (Caffe) and dynamic (Torch) strategies ---
  // Channel-blocked blobs (tensors) between the layers whose backend runs them blocked,
  // converted where a reader takes NCHW only (Intel Caffe's MKL-DNN engine, graph/layerwise/
  // net.h; Intel's MKL-DNN Torch and PyTorch's to_mkldnn, graph/dynamic/context.h).
  bool blocked_layout = false;
  // --- dynamic strategy (Torch, PyTorch) ---
  bool caching_allocator = true;  // reuse freed blocks by size, as PyTorch's allocator
  bool per_sample = false;        // Torch's CIFAR-10 script: forward/backward one sample at a
                                  // time, gradients accumulated over the batch, one update
  // --- static strategy (TensorFlow, Theano) ---
  std::vector<std::string> disabled_passes;  // graph passes switched off by name (graph/static/passes.h)
  ExecutorKind executor = ExecutorKind::sequential;
  int inter_op_threads = 1;                  // threads of the parallel executor, >= 1
  // The cores the executor's pool and the ops' threads share (a run's --threads): the pool is
  // cut to fit (graph/static/executor.h, inter_op_threads_within). 0: no budget, the pool as asked.
  int core_budget = 0;
};

// What an engine wants in the result record beyond the common metrics: counters (a caching
// allocator's hits, misses and peak bytes; a memory plan's bytes) and resolved settings
// (the graph passes that ran). Keys are snake_case.
struct EngineReport {
  std::vector<std::pair<std::string, double>> counters;
  std::vector<std::pair<std::string, std::string>> settings;
};

struct EvalResult {
  double loss = 0;          // mean over the batch
  std::int64_t correct = 0; // samples whose top-1 class equals the label
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual std::string strategy() const = 0;  // "layerwise", "dynamic", "static"
  // One iteration: forward, backward, update with the learning rate of `iteration` (0-based).
  // x [N, C, H, W] and labels i32 [N] on the host; returns the mean loss of the batch.
  virtual double train_step(const kernels::Tensor& x, const kernels::Tensor& labels,
                            std::int64_t iteration) = 0;
  // Forward in test mode (no dropout) on a batch of any size.
  virtual EvalResult evaluate(const kernels::Tensor& x, const kernels::Tensor& labels) = 0;
  virtual std::vector<Parameter*> parameters() = 0;
  // The model's state tensors (above), in models::make_initial_state's order; every engine
  // starts them from those values. Empty for a model without any.
  virtual std::vector<StateTensor> state_tensors() = 0;
  virtual kernels::Backend& backend() = 0;
  virtual EngineReport report() const { return {}; }
  // The engine's shared optimizer and weight average (nullptr if none), which with
  // parameters() make the state a checkpoint holds (graph/engine_checkpoint.h).
  virtual Optimizer* optimizer() { return nullptr; }
  virtual WeightAverage* weight_average() { return nullptr; }
  // An engine that keeps its optimizer state itself (the static strategy's variables) gives
  // every state tensor by name and its count of updates here instead.
  struct OwnState {
    std::vector<std::pair<std::string, kernels::Tensor*>> tensors;
    std::int64_t* updates = nullptr;
  };
  virtual bool own_state(OwnState&) { return false; }
  // Data-parallel training inside the engine's own update (graph/distributed/data_parallel.h):
  // an engine without a shared optimizer (the static strategy: its updates are graph nodes)
  // averages its gradients and state tensors through `averager` from now on and returns true,
  // as Horovod adds all-reduce ops to a TensorFlow graph; false: it cannot.
  virtual bool average_in_engine(std::shared_ptr<distributed::GradientAverager>) { return false; }
};

// --- the table of strategies (engine_registry.cpp) ---------------------------------------
// Options every strategy uses: dtype (f32 or f64), batch (>= 1), seed, first_sample, the
// optimizer and weight averaging. A switch is an option only some strategies use; its key is
// its preset key and result-record field, its flag the command line's.
struct StrategySwitch {
  std::string key;   // "caching_allocator"
  std::string flag;  // "caching-allocator"
};

struct StrategyInfo {
  std::string name;     // "static"
  std::string mirrors;  // "TensorFlow 1.x, Theano"
  std::vector<StrategySwitch> switches;
  std::unique_ptr<Engine> (*build)(const models::CheckedModel& model, kernels::Backend& backend,
                                   const EngineOptions& options);
  // Throws std::invalid_argument for a bad value of one of its switches; null: none to check.
  void (*check_options)(const EngineOptions& options);
  // The catalogued layer types it has no builder for (graph/layer_registry.h): none in a
  // correct build.
  std::vector<std::string> (*missing_builders)();
};

const std::vector<StrategyInfo>& strategies();
std::vector<std::string> strategy_names();  // layerwise, dynamic, static
// Throws std::invalid_argument "strategy 'x' is not known; the strategies are: ...".
const StrategyInfo& find_strategy(const std::string& name);
// The strategies that use switch `key`; empty when no strategy lists it.
std::vector<std::string> strategies_using(const std::string& key);
// The checks of make_engine: the options every strategy uses, then the strategy's switches.
void check_engine_options(const std::string& strategy, const EngineOptions& options);
// Builds the engine of `strategy` after check_engine_options; an unknown strategy throws
// naming it. A catalogued layer type the strategy has no builder for (a registration the
// linker dropped) is a logic_error naming it, whatever the model.
std::unique_ptr<Engine> make_engine(const std::string& strategy, const models::CheckedModel& model,
                                    kernels::Backend& backend, const EngineOptions& options);
// The same from a ModelSpec, checked once here.
std::unique_ptr<Engine> make_engine(const std::string& strategy, const models::ModelSpec& spec,
                                    kernels::Backend& backend, const EngineOptions& options);

}  // namespace ablate::graph
