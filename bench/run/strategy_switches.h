// The engine side of a run, in one place: the three execution strategies (layer-wise as Caffe,
// dynamic tape as Torch, static graph as TensorFlow and Theano), the switches each accepts, and
// the graph::EngineOptions of a resolved run. Resolution (run_config.cpp) parses names through
// here and asks here which strategy a switch belongs to; the assembly (prepared_run.cpp) and
// `ablate graph` build the engine's options here and nowhere else.
//
// When graph/ offers its table of strategies (issue 14, item 3), this file is the one to point
// at it: Strategy, strategy_names() and switch_strategy() become that table's, and
// engine_options() maps onto its typed switches.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "graph/engine.h"

namespace ablate::bench::run {

struct RunConfig;

enum class Strategy { layerwise, dynamic, static_graph };
enum class Executor { sequential, parallel };  // the static strategy's: one thread, or an inter-op pool

// "layerwise", "dynamic", "static": as flags, presets and records spell them.
const char* strategy_name(Strategy strategy);
const std::vector<std::string>& strategy_names();
// Throws "WHERE 'TEXT': not known; the strategies are: layerwise, dynamic, static".
Strategy parse_strategy(const std::string& text, const std::string& where);

const char* executor_name(Executor executor);  // "sequential", "parallel"
// Throws "WHERE 'TEXT': expected sequential or parallel".
Executor parse_executor(const std::string& text, const std::string& where);

// The strategies' switches as resolved. Each belongs to one strategy (switch_strategy); the
// weight average belongs to all three.
struct StrategySwitches {
  double weight_average_decay = 0;           // evaluate with an EMA of the weights; 0: off
  bool caching_allocator = true;             // dynamic
  bool per_sample = false;                   // dynamic
  std::string passes = "all";                // static: the --passes spec as given (pass_spec.h)
  std::vector<std::string> disabled_passes;  // static: resolved from `passes`
  Executor executor = Executor::sequential;  // static
  int inter_op_threads = 1;                  // static
};

// The preset keys of the switches that belong to one strategy, and that strategy. A switch
// given for another strategy is an error as a flag and recorded as unused from a preset.
const std::vector<std::string>& strategy_switch_keys();
Strategy switch_strategy(const std::string& key);

// The engine's options for this rank of the run: its slice of the global batch, the slice's
// place for dropout masks, the optimizer, precision, seed and the strategy's switches.
graph::EngineOptions engine_options(const RunConfig& config);
// The engine of the run's strategy on `backend`, with engine_options(config).
std::unique_ptr<graph::Engine> make_engine(const RunConfig& config, const models::ModelSpec& spec,
                                           kernels::Backend& backend);

}  // namespace ablate::bench::run
