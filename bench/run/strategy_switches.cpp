// The strategy, its switches and the engine's options of a run (strategy_switches.h).
#include "bench/run/strategy_switches.h"

#include <stdexcept>

#include "bench/run/distributed_run.h"
#include "bench/run/run_config.h"

namespace ablate::bench::run {

std::string parse_strategy(const std::string& text, const std::string& where) {
  try {
    return graph::find_strategy(text).name;  // its error lists the strategies
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(where + ": " + e.what());
  }
}

graph::EngineOptions engine_options(const RunConfig& c) {
  const StrategySwitches& s = c.switches;
  graph::EngineOptions o;
  o.dtype = c.precision;
  o.batch = local_batch(c);                  // --distributed: this rank's slice of the global batch
  o.first_sample = c.rank * local_batch(c);  // --distributed: the slice's dropout masks
  o.seed = c.seed;
  o.optimizer = c.optimizer;
  o.weight_average_decay = s.weight_average_decay;
  o.blocked_layout = s.blocked_layout;
  o.caching_allocator = s.caching_allocator;
  o.per_sample = s.per_sample;
  o.disabled_passes = s.disabled_passes;
  o.executor = s.executor;
  o.inter_op_threads = s.inter_op_threads;
  o.core_budget = c.backend.options.threads;  // --threads: the pool and the ops' threads share it
  return o;
}

std::unique_ptr<graph::Engine> make_engine(const RunConfig& config, const models::ModelSpec& spec,
                                           kernels::Backend& backend) {
  return graph::make_engine(config.strategy, spec, backend, engine_options(config));
}

}  // namespace ablate::bench::run
