// Engine: what every execution strategy (layer-wise as Caffe, dynamic tape as Torch,
// static graph as TensorFlow and Theano) offers the training loop. An engine is built from a
// ModelSpec over one Backend and owns its parameters, gradients and optimizer state.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "graph/optim/optimizer_config.h"
#include "kernels/backend.h"
#include "models/model_spec.h"

namespace ablate::graph {

class Optimizer;
class WeightAverage;

// A learnable tensor with its gradient and its per-parameter multipliers
// (Caffe's lr_mult and decay_mult; biases of Caffe's models learn at 2x).
struct Parameter {
  std::string name;  // "conv1.weight", "conv1.bias"
  kernels::Tensor value, grad;
  double lr_mult = 1.0, decay_mult = 1.0;
};

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

  // --- dynamic strategy (Torch, PyTorch) ---
  bool caching_allocator = true;  // reuse freed blocks by size, as PyTorch's allocator
  bool per_sample = false;        // Torch's CIFAR-10 script: forward/backward one sample at a
                                  // time, gradients accumulated over the batch, one update
  // --- static strategy (TensorFlow, Theano) ---
  std::vector<std::string> disabled_passes;  // graph passes switched off by name
  std::string executor = "sequential";       // sequential | parallel (inter-op pool)
  int inter_op_threads = 1;
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
};

std::vector<std::string> strategy_names();
// Whether this build has the engine of `strategy` yet.
bool strategy_built(const std::string& strategy);
// Builds the engine of `strategy`; an unknown or not yet built strategy throws naming it.
std::unique_ptr<Engine> make_engine(const std::string& strategy, const models::ModelSpec& spec,
                                    kernels::Backend& backend, const EngineOptions& options);

}  // namespace ablate::graph
