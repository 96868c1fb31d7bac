// Running and recording one step per strategy (see step_explanation.h).
#include "bench/experiments/step_explanation.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "bench/run/prepared_run.h"
#include "datasets/dataset_registry.h"
#include "datasets/loader.h"
#include "graph/dynamic/tape_dot.h"
#include "graph/layerwise/net.h"
#include "graph/layerwise/net_dot.h"
#include "graph/optim/optimizer.h"
#include "kernels/op_label.h"

namespace ablate::bench::experiments {
namespace {

std::int64_t bytes(const kernels::Tensor& t) { return t.empty() ? 0 : static_cast<std::int64_t>(t.bytes()); }

// Parameters (with model state), gradients and optimizer state of an engine, after a step.
void split_engine_bytes(graph::Engine& engine, MemorySplit& m) {
  std::set<std::string> own;
  for (graph::Parameter* p : engine.parameters()) {
    m.parameters += bytes(p->value);
    m.gradients += bytes(p->grad);
    own.insert(p->name);
  }
  for (const graph::StateTensor& s : engine.state_tensors()) {
    m.parameters += bytes(s.value);
    own.insert(s.name);
  }
  if (graph::Optimizer* optimizer = engine.optimizer()) {
    for (std::size_t i = 0; i < engine.parameters().size(); ++i)
      for (const kernels::Tensor* t : optimizer->state(i)) m.optimizer_state += bytes(*t);
  } else if (graph::Engine::OwnState state; engine.own_state(state)) {
    for (const auto& [name, tensor] : state.tensors)  // the static graph's variables: the slots are the rest
      if (!own.count(name) && name.find(".average") == std::string::npos) m.optimizer_state += bytes(*tensor);
  }
}

}  // namespace

std::vector<datasets::Batch> first_batches(const run::PreparedRun& prepared, int count) {
  datasets::LoaderOptions lo;
  lo.batch = prepared.config.batch;
  lo.shuffle = prepared.config.shuffle;
  lo.seed = prepared.config.seed;
  lo.dtype = prepared.dtype;
  datasets::BatchLoader loader(prepared.data.train, prepared.transform, lo);
  std::vector<datasets::Batch> out;
  for (int i = 0; i < count; ++i) {
    datasets::Batch b = loader.next();
    out.push_back({b.x.clone(), b.labels.clone()});
  }
  return out;
}

run::Flags flags_for(const run::Flags& flags, const std::string& strategy) {
  run::Flags mine = flags;
  mine.set("strategy", strategy);
  const auto& own = graph::find_strategy(strategy).switches;
  for (const graph::StrategyInfo& info : graph::strategies())
    for (const graph::StrategySwitch& sw : info.switches)
      if (std::none_of(own.begin(), own.end(), [&](const graph::StrategySwitch& o) { return o.flag == sw.flag; }))
        mine.erase(sw.flag);
  if (strategy == "static" && !flags.has("executor")) mine.set("executor", "sequential");
  return mine;
}

namespace {

StrategyStep record_strategy(const run::Flags& flags, const std::string& strategy, const datasets::TrainTest& data,
                             int warmup, StepRecorder& recorder, Explanation& explanation) {
  run::RunConfig config = run::resolve_run_config(flags_for(flags, strategy));
  if (explanation.steps.empty()) explanation.config = config;
  auto prepared = run::prepare_run(config, data);
  explanation.model = prepared->spec.name;
  const std::vector<datasets::Batch> batches = first_batches(*prepared, warmup + 1);
  graph::Engine& engine = *prepared->engine;
  for (int i = 0; i < warmup; ++i) engine.train_step(batches[static_cast<std::size_t>(i)].x, batches[static_cast<std::size_t>(i)].labels, i);

  StrategyStep step;
  step.strategy = strategy;
  const datasets::Batch& batch = batches.back();
  kernels::cpu_allocator().reset_peak();
  prepared->backend->set_observer(&recorder);
  const std::size_t first_op = recorder.records().size();
  step.start_us = recorder.now_us();
  try {
    step.loss = engine.train_step(batch.x, batch.labels, warmup);
  } catch (...) {
    prepared->backend->set_observer(nullptr);
    throw;
  }
  step.end_us = recorder.now_us();
  prepared->backend->set_observer(nullptr);
  step.peak_tensor_bytes = kernels::cpu_allocator().stats().peak_bytes;
  step.ops.assign(recorder.records().begin() + static_cast<std::ptrdiff_t>(first_op), recorder.records().end());
  // Tape positions counted from the earliest node whose backward ran an op (the first node of
  // the tape for these models), as tape.dot, a fresh tape, counts them.
  std::int64_t first_node = -1;
  for (const OpRecord& r : step.ops)
    if (r.index >= 0 && (first_node < 0 || r.index < first_node)) first_node = r.index;
  for (OpRecord& r : step.ops)
    if (r.index >= 0) r.index -= first_node - 1;
  std::set<const void*> workspaces;
  for (const OpRecord& r : step.ops) {
    step.op_us += r.duration_us;
    if (r.workspace && workspaces.insert(r.workspace).second) step.memory.workspace += r.workspace_bytes;
  }
  split_engine_bytes(engine, step.memory);

  const graph::EngineOptions options = run::engine_options(prepared->config);
  const models::CheckedModel model(prepared->spec);
  if (strategy == "layerwise") {
    graph::layerwise::NetOptions net_options;
    net_options.batch = options.batch;
    net_options.dtype = options.dtype;
    const graph::layerwise::Net net(model, *prepared->backend, net_options);
    explanation.net_dot = graph::layerwise::net_dot(net, model.name() + ", batch " + std::to_string(options.batch) +
                                                             ": the layer-wise net");
  } else if (strategy == "dynamic") {
    explanation.tape_dot = graph::dynamic::recorded_tape_dot(model, *prepared->backend, options, batch.x, batch.labels);
  } else if (strategy == "static") {
    explanation.graph = graph::static_graph::dump_training_graph(prepared->spec, options, *prepared->backend);
    explanation.has_graph = true;
  }
  prepared->engine.reset();
  step.memory.outside = kernels::cpu_allocator().stats().live_bytes;
  const MemorySplit& m = step.memory;
  step.memory.activations = std::max<std::int64_t>(
      0, step.peak_tensor_bytes - m.outside - m.parameters - m.gradients - m.optimizer_state - m.workspace);
  return step;
}

}  // namespace

Explanation explain_step(const run::Flags& flags, const std::vector<std::string>& strategies, int warmup) {
  if (strategies.empty()) throw std::invalid_argument("--strategies: empty; expected a list such as layerwise,dynamic,static");
  for (std::size_t i = 0; i < strategies.size(); ++i)
    if (std::find(strategies.begin(), strategies.begin() + static_cast<std::ptrdiff_t>(i), strategies[i]) !=
        strategies.begin() + static_cast<std::ptrdiff_t>(i))
      throw std::invalid_argument("--strategies: '" + strategies[i] + "' is named twice");
  run::Flags base = flags;
  if (!base.has("dataset")) base.set("dataset", "synthetic");
  const run::RunConfig first = run::resolve_run_config(flags_for(base, strategies.front()));
  const datasets::TrainTest data = datasets::load_dataset(first.dataset, first.data_dir, first.seed);
  Explanation explanation;
  StepRecorder recorder;
  for (const std::string& s : strategies)
    explanation.steps.push_back(record_strategy(base, s, data, warmup, recorder, explanation));
  return explanation;
}

}  // namespace ablate::bench::experiments
