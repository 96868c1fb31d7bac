// The strategies, their switches and the engine's options (strategy_switches.h).
#include "bench/run/strategy_switches.h"

#include <stdexcept>

#include "bench/run/distributed_run.h"
#include "bench/run/run_config.h"

namespace ablate::bench::run {

namespace {

struct SwitchOwner {
  const char* key;  // the preset key; the flag is the same with '-' for '_'
  Strategy strategy;
};

// Which strategy each switch belongs to.
const SwitchOwner kSwitchOwners[] = {
    {"caching_allocator", Strategy::dynamic},  {"per_sample", Strategy::dynamic},
    {"passes", Strategy::static_graph},        {"executor", Strategy::static_graph},
    {"inter_op_threads", Strategy::static_graph},
};

}  // namespace

const char* strategy_name(Strategy strategy) {
  switch (strategy) {
    case Strategy::layerwise: return "layerwise";
    case Strategy::dynamic: return "dynamic";
    case Strategy::static_graph: return "static";
  }
  return "?";
}

const std::vector<std::string>& strategy_names() {
  static const std::vector<std::string> names = {strategy_name(Strategy::layerwise), strategy_name(Strategy::dynamic),
                                                 strategy_name(Strategy::static_graph)};
  return names;
}

Strategy parse_strategy(const std::string& text, const std::string& where) {
  for (Strategy s : {Strategy::layerwise, Strategy::dynamic, Strategy::static_graph})
    if (text == strategy_name(s)) return s;
  throw std::invalid_argument(where + " '" + text + "': not known; the strategies are: layerwise, dynamic, static");
}

const char* executor_name(Executor executor) {
  return executor == Executor::parallel ? "parallel" : "sequential";
}

Executor parse_executor(const std::string& text, const std::string& where) {
  if (text == "sequential") return Executor::sequential;
  if (text == "parallel") return Executor::parallel;
  throw std::invalid_argument(where + " '" + text + "': expected sequential or parallel");
}

const std::vector<std::string>& strategy_switch_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k;
    for (const SwitchOwner& o : kSwitchOwners) k.push_back(o.key);
    return k;
  }();
  return keys;
}

Strategy switch_strategy(const std::string& key) {
  for (const SwitchOwner& o : kSwitchOwners)
    if (key == o.key) return o.strategy;
  throw std::logic_error("'" + key + "' is not a strategy switch");
}

graph::EngineOptions engine_options(const RunConfig& c) {
  const StrategySwitches& s = c.switches;
  graph::EngineOptions o;
  o.dtype = c.precision;
  o.batch = local_batch(c);                      // --distributed: this rank's slice of the global batch
  o.first_sample = c.rank * local_batch(c);      // --distributed: the slice's dropout masks
  o.seed = c.seed;
  o.optimizer = c.optimizer;
  o.weight_average_decay = s.weight_average_decay;
  o.caching_allocator = s.caching_allocator;
  o.per_sample = s.per_sample;
  o.disabled_passes = s.disabled_passes;
  o.executor = executor_name(s.executor);
  o.inter_op_threads = s.inter_op_threads;
  return o;
}

std::unique_ptr<graph::Engine> make_engine(const RunConfig& config, const models::ModelSpec& spec,
                                           kernels::Backend& backend) {
  return graph::make_engine(strategy_name(config.strategy), spec, backend, engine_options(config));
}

}  // namespace ablate::bench::run
