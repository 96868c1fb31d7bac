// Strategy registry: gives the Engine of a strategy by name.
#include <stdexcept>

#include "graph/engine.h"
#include "graph/dynamic/dynamic_engine.h"
#include "graph/layerwise/layerwise_engine.h"
#include "graph/static/static_engine.h"

namespace ablate::graph {

std::vector<std::string> strategy_names() { return {"layerwise", "dynamic", "static"}; }

bool strategy_built(const std::string& strategy) {
  return strategy == "layerwise" || strategy == "dynamic" || strategy == "static";
}

std::unique_ptr<Engine> make_engine(const std::string& strategy, const models::ModelSpec& spec,
                                    kernels::Backend& backend, const EngineOptions& options) {
  if (options.batch <= 0)
    throw std::invalid_argument("batch size " + std::to_string(options.batch) + ": expected a positive count");
  if (strategy == "layerwise") return layerwise::make_layerwise_engine(spec, backend, options);
  if (strategy == "dynamic") return dynamic::make_dynamic_engine(spec, backend, options);
  if (strategy == "static") return static_graph::make_static_engine(spec, backend, options);
  throw std::invalid_argument("strategy '" + strategy + "' is not known; the strategies are: layerwise, dynamic, static");
}

}  // namespace ablate::graph
