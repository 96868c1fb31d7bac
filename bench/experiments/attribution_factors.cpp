// The factors of the account of a difference (attribution_factors.h).
#include "bench/experiments/attribution_factors.h"

#include "bench/run/run_flags.h"
#include "kernels/cpu/conv_lowering.h"
#include "kernels/registry.h"

namespace ablate::bench::experiments {

namespace {

// A backend option's name as resolved, or "default" when the backend's own default runs.
template <class Option, class Name> std::string option_text(const std::optional<Option>& o, Name name) {
  return o ? std::string(name(*o)) : std::string("default");
}

std::vector<std::string> names_of(const auto& values, auto name) {
  std::vector<std::string> out;
  for (const auto& v : values) out.push_back(name(v));
  return out;
}

}  // namespace

std::vector<AttributionFactor> attribution_factors() {
  using C = const run::RunConfig&;
  const std::vector<AttributionFactor> all = {
      {"strategy", "strategy", graph::strategy_names(), [](C c) { return c.strategy; }},
      {"backend", "backend", kernels::cpu_speed_backend_names(), [](C c) { return c.backend.name; }},
      {"threads", "threads", {"all"}, [](C c) { return std::to_string(c.backend.options.threads); }},
      // Each framework's own math: a lowering or threading that the backend (after the switches before it)
      // does not take is refused by the run configuration and not measured.
      {"conv lowering", "conv-lowering", names_of(kernels::cpu::all_conv_lowerings(), kernels::cpu::conv_lowering_name),
       [](C c) { return option_text(c.backend.options.conv_lowering, kernels::cpu::conv_lowering_name); }},
      {"threading", "threading", names_of(kernels::cpu::all_threadings(), kernels::cpu::threading_name),
       [](C c) { return option_text(c.backend.options.threading, kernels::cpu::threading_name); }},
      {"precision", "precision", {"f32"}, [](C c) { return std::string(kernels::dtype_name(c.precision)); }},
      {"passes", "passes", {"all"}, [](C c) { return c.switches.passes; }},
      {"executor", "executor", {"sequential", "parallel"},
       [](C c) { return std::string(graph::executor_name(c.switches.executor)); }},
      {"allocator", "caching-allocator", {"on"}, [](C c) { return std::string(c.switches.caching_allocator ? "on" : "off"); }},
      {"blocked-layout", "blocked-layout", {"on"}, [](C c) { return std::string(c.switches.blocked_layout ? "on" : "off"); }},
      // A backend per layer, measured at start-up (bench/run/plan_measure.h), against the one backend.
      {"plan", "plan", {"auto"}, [](C c) { return c.plan.empty() ? std::string("off") : c.plan; }},
      {"malloc", "malloc", {"keep"}, [](C c) { return std::string(run::malloc_policy_name(c.malloc_policy)); }},
      {"huge-pages", "huge-pages", {"madvise"}, [](C c) { return std::string(kernels::huge_pages_name(c.huge_pages)); }},
  };
  std::vector<AttributionFactor> built;
  for (const AttributionFactor& f : all)
    if (run::find_run_flag(f.flag)) built.push_back(f);
  return built;
}

}  // namespace ablate::bench::experiments
