// The factors of the account of a difference (attribution_factors.h).
#include "bench/experiments/attribution_factors.h"

#include "bench/run/run_flags.h"
#include "kernels/registry.h"

namespace ablate::bench::experiments {

namespace {

// The CPU backends of this build (reference is the teaching oracle, never a fastest choice).
std::vector<std::string> cpu_backends() {
  std::vector<std::string> out;
  for (const std::string& b : kernels::backend_names())
    if (b != "reference" && b != "cuda") out.push_back(b);
  return out;
}

}  // namespace

std::vector<AttributionFactor> attribution_factors() {
  using C = const run::RunConfig&;
  const std::vector<AttributionFactor> all = {
      {"strategy", "strategy", graph::strategy_names(), [](C c) { return c.strategy; }},
      {"backend", "backend", cpu_backends(), [](C c) { return c.backend.name; }},
      {"threads", "threads", {"all"}, [](C c) { return std::to_string(c.backend.options.threads); }},
      {"precision", "precision", {"f32"}, [](C c) { return std::string(kernels::dtype_name(c.precision)); }},
      {"passes", "passes", {"all"}, [](C c) { return c.switches.passes; }},
      {"executor", "executor", {"sequential", "parallel"},
       [](C c) { return std::string(graph::executor_name(c.switches.executor)); }},
      {"allocator", "caching-allocator", {"on"}, [](C c) { return std::string(c.switches.caching_allocator ? "on" : "off"); }},
  };
  std::vector<AttributionFactor> built;
  for (const AttributionFactor& f : all)
    if (run::find_run_flag(f.flag)) built.push_back(f);
  return built;
}

}  // namespace ablate::bench::experiments
