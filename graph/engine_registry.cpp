// The table of strategies: each strategy's name, the framework it mirrors, its builder and
// the switches only it uses, with their checks (see engine.h). The one place that knows
// every strategy, as kernels/registry.cpp knows every backend.
#include <stdexcept>

#include "graph/dynamic/dynamic_engine.h"
#include "graph/engine.h"
#include "graph/layerwise/layerwise_engine.h"
#include "graph/static/static_engine.h"

namespace ablate::graph {
namespace {

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

}  // namespace

const std::vector<StrategyInfo>& strategies() {
  static const std::vector<StrategyInfo> table = {
      {"layerwise", "Caffe", {{"blocked_layout", "blocked-layout"}}, layerwise::make_layerwise_engine, nullptr,
       layerwise::missing_builders},
      {"dynamic",
       "Torch7, PyTorch",
       {{"caching_allocator", "caching-allocator"}, {"per_sample", "per-sample"}, {"blocked_layout", "blocked-layout"}},
       dynamic::make_dynamic_engine,
       nullptr,
       dynamic::missing_builders},
      {"static",
       "TensorFlow 1.x, Theano",
       {{"passes", "passes"}, {"executor", "executor"}, {"inter_op_threads", "inter-op-threads"}},
       static_graph::make_static_engine,
       static_graph::check_static_options,
       static_graph::missing_builders},
  };
  return table;
}

std::vector<std::string> strategy_names() {
  std::vector<std::string> names;
  for (const StrategyInfo& s : strategies()) names.push_back(s.name);
  return names;
}

const StrategyInfo& find_strategy(const std::string& name) {
  for (const StrategyInfo& s : strategies())
    if (s.name == name) return s;
  throw std::invalid_argument("strategy '" + name + "' is not known; the strategies are: " + join(strategy_names()));
}

std::vector<std::string> strategies_using(const std::string& key) {
  std::vector<std::string> names;
  for (const StrategyInfo& s : strategies())
    for (const StrategySwitch& sw : s.switches)
      if (sw.key == key) names.push_back(s.name);
  return names;
}

const char* executor_name(ExecutorKind kind) { return kind == ExecutorKind::parallel ? "parallel" : "sequential"; }

ExecutorKind parse_executor(const std::string& text, const std::string& what) {
  for (ExecutorKind kind : {ExecutorKind::sequential, ExecutorKind::parallel})
    if (text == executor_name(kind)) return kind;
  throw std::invalid_argument(what + " '" + text + "' is not known; expected sequential or parallel");
}

void check_engine_options(const std::string& strategy, const EngineOptions& options) {
  const StrategyInfo& info = find_strategy(strategy);
  if (options.batch <= 0)
    throw std::invalid_argument("batch size " + std::to_string(options.batch) + ": expected a positive count");
  if (options.dtype != kernels::DType::f32 && options.dtype != kernels::DType::f64)
    throw std::invalid_argument(std::string("precision ") + kernels::dtype_name(options.dtype) +
                                "; expected f32 or f64");
  validate(options.optimizer);
  if (info.check_options) info.check_options(options);
}

namespace {

std::unique_ptr<Engine> build_engine(const StrategyInfo& info, const models::CheckedModel& model,
                                     kernels::Backend& backend, const EngineOptions& options) {
  if (model.spec().forward_only)
    throw std::invalid_argument("model '" + model.name() + "' (" + model.spec().source +
                                ") runs forward only (an imported operator graph without a loss): the " + info.name +
                                " strategy trains, and there is nothing to train it on; run it with "
                                "graph/static/forward_runner.h, or import it with its loss");
  if (const auto missing = info.missing_builders(); !missing.empty())
    throw std::logic_error("this build of the " + info.name + " strategy has no builder for layer types " +
                           join(missing) + " (a registration left out of the link?)");
  return info.build(model, backend, options);
}

}  // namespace

std::unique_ptr<Engine> make_engine(const std::string& strategy, const models::CheckedModel& model,
                                    kernels::Backend& backend, const EngineOptions& options) {
  check_engine_options(strategy, options);
  return build_engine(find_strategy(strategy), model, backend, options);
}

std::unique_ptr<Engine> make_engine(const std::string& strategy, const models::ModelSpec& spec,
                                    kernels::Backend& backend, const EngineOptions& options) {
  check_engine_options(strategy, options);
  return build_engine(find_strategy(strategy), models::CheckedModel(spec), backend, options);
}

}  // namespace ablate::graph
