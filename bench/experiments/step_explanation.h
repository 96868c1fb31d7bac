// One training step explained (`ablate explain`): the same model, initial weights and batch
// trained by each chosen strategy (layer-wise as Caffe, dynamic tape as Torch, static graph
// as TensorFlow and Theano) on the same backend, one after another, each step recorded op
// by op (step_recorder.h), with the step's time, its peak tensor bytes and their split, and
// the pictures a learner reads beside it: the net (net.dot), the tape (tape.dot) and the
// static graph before, after each pass and after compilation, with its memory plan.
// Each strategy first trains one unrecorded step (`warmup`, default 1), so the recorded one
// is a steady step: optimizer state, workspaces and caches already exist, as in a long run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/experiments/step_recorder.h"
#include "bench/run/flags.h"
#include "bench/run/prepared_run.h"
#include "bench/run/run_config.h"
#include "datasets/loader.h"
#include "graph/static/graph_dump.h"

namespace ablate::bench::experiments {

// Peak tensor bytes of a step, split. `outside` is what the process holds that no engine
// does (the data set and the batch); `activations` is the rest of the peak: layer outputs,
// their gradients, the static arena, a tape's saved tensors and cached blocks.
struct MemorySplit {
  std::int64_t parameters = 0;       // learnable values and model state (running statistics)
  std::int64_t gradients = 0;        // of the parameters
  std::int64_t optimizer_state = 0;  // momentum history, Adam's moments
  std::int64_t workspace = 0;        // backend workspaces the step filled (pooling argmax, LRN)
  std::int64_t activations = 0;
  std::int64_t outside = 0;
};

struct StrategyStep {
  std::string strategy;
  std::vector<OpRecord> ops;
  double start_us = 0, end_us = 0;  // the recorded train_step, on the recorder's clock
  double op_us = 0;                 // sum of the ops' times; engine time is the step's rest
  double loss = 0;
  std::int64_t peak_tensor_bytes = 0;  // the host allocator's peak during the step (as a run record's)
  MemorySplit memory;
  double step_us() const { return end_us - start_us; }
  double engine_us() const { return step_us() - op_us; }
};

struct Explanation {
  run::RunConfig config;  // as resolved for the first strategy
  std::string model;
  std::vector<StrategyStep> steps;  // in the order asked for
  std::string net_dot, tape_dot;    // empty when that strategy was not asked for
  graph::static_graph::GraphDump graph;  // empty dots when static was not asked for
  bool has_graph = false;
};

// `flags` as for `ablate run` (framework, dataset, batch, backend, precision, ...); the
// strategy flag is set per strategy. Throws std::invalid_argument for an unknown strategy or
// one named twice.
Explanation explain_step(const run::Flags& flags, const std::vector<std::string>& strategies, int warmup = 1);

// The flags of one strategy's run: the strategy set, another strategy's switches (--passes
// for static) dropped, and the static graph's ops run in order on one thread. Throws naming
// an unknown strategy.
run::Flags flags_for(const run::Flags& flags, const std::string& strategy);
// The first `count` training batches of a prepared run's data (copies), the loader gone
// before they are used (its prefetch thread would allocate while a step is measured).
std::vector<datasets::Batch> first_batches(const run::PreparedRun& prepared, int count);

}  // namespace ablate::bench::experiments
