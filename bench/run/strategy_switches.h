// The engine side of a run, in one place in bench/: the strategy (layer-wise as Caffe, dynamic
// tape as Torch, static graph as TensorFlow and Theano) checked against graph's table of
// strategies (graph/engine.h: names, and which switches each uses), the strategies' switches
// as typed values, and the graph::EngineOptions of a resolved run. Resolution (run_config.cpp)
// parses through here and checks each given switch against graph's table; the assembly
// (prepared_run.cpp) and `ablate graph` build the engine's options here and nowhere else.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "graph/engine.h"

namespace ablate::bench::run {

struct RunConfig;

// The name of a strategy of graph's table ("layerwise", "dynamic", "static"); throws
// "WHERE: strategy 'x' is not known; the strategies are: ...".
std::string parse_strategy(const std::string& text, const std::string& where);

// The strategies' switches as resolved. graph::strategies() says which strategy uses each
// (by its preset key); the weight average belongs to all three.
struct StrategySwitches {
  double weight_average_decay = 0;           // evaluate with an EMA of the weights; 0: off
  bool blocked_layout = false;               // layerwise, dynamic
  bool caching_allocator = true;             // dynamic
  bool per_sample = false;                   // dynamic
  std::string passes = "all";                // static: the --passes spec as given (pass_spec.h)
  std::vector<std::string> disabled_passes;  // static: resolved from `passes`
  graph::ExecutorKind executor = graph::ExecutorKind::sequential;  // static
  int inter_op_threads = 1;                  // static
};

// The engine's options for this rank of the run: its slice of the global batch, the slice's
// place for dropout masks, the optimizer, precision, seed and the strategy's switches.
graph::EngineOptions engine_options(const RunConfig& config);
// The engine of the run's strategy on `backend`, with engine_options(config).
std::unique_ptr<graph::Engine> make_engine(const RunConfig& config, const models::ModelSpec& spec,
                                           kernels::Backend& backend);

}  // namespace ablate::bench::run
