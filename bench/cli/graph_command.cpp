// `ablate graph`: writes the static strategy's training graph of a model before and after
// the graph passes as Graphviz dot (FILE.before.dot and FILE.after.dot, where a trailing
// ".dot" of FILE is dropped first), and prints the compiler's figures: node counts, the
// rewrites of each pass, the planned and unplanned bytes. The model and recipe come from the
// framework's preset as for `ablate run`; --passes-off switches passes off by name.
// Render with: dot -Tsvg FILE.after.dot -o FILE.after.svg
#include <cstdio>
#include <stdexcept>

#include "bench/run/flags.h"
#include "bench/run/text_file.h"
#include "bench/run/text_format.h"
#include "bench/cli/commands.h"
#include "bench/run/run_config.h"
#include "bench/run/strategy_switches.h"
#include "graph/static/graph_dump.h"
#include "graph/static/passes.h"
#include "kernels/registry.h"
#include "models/model_spec.h"

namespace ablate::bench::cli {
namespace {

int graph_main(const run::Flags& args) {
  if (!args.has("dot") || args.get("dot").empty()) throw std::invalid_argument("--dot FILE is required (see ablate graph --help)");
  const run::RunConfig config = run::resolve_run_config(args);
  const models::ModelSpec spec = models::load_model(config.model);
  graph::EngineOptions options = run::engine_options(config);
  options.disabled_passes = run::split_list(args.get("passes-off", ""), true);  // this command's switch, not the preset's
  auto backend = kernels::make_backend("reference", 1);
  const auto dump = graph::static_graph::dump_training_graph(spec, options, *backend);

  std::string stem = args.get("dot");
  if (stem.size() > 4 && stem.compare(stem.size() - 4, 4, ".dot") == 0) stem.resize(stem.size() - 4);
  run::write_text_file(stem + ".before.dot", dump.before_dot, "--dot");
  run::write_text_file(stem + ".after.dot", dump.after_dot, "--dot");

  const auto& s = dump.stats;
  std::printf("%s (%s), batch %lld, %s: %d nodes as built, %d compiled\n", spec.name.c_str(), config.framework.c_str(),
              static_cast<long long>(options.batch), options.optimizer.type.c_str(), s.passes.nodes_before,
              s.passes.nodes_after);
  for (const auto& [pass, count] : s.passes.rewrites) std::printf("  %-22s %d rewrites\n", pass.c_str(), count);
  std::printf("  %-22s %s: %.2f MiB planned, %.2f MiB with a buffer per tensor\n", "memory_planning",
              s.memory_planning ? "on" : "off", static_cast<double>(s.planned_bytes) / (1 << 20),
              static_cast<double>(s.unplanned_bytes) / (1 << 20));
  std::printf("wrote %s.before.dot and %s.after.dot\n", stem.c_str(), stem.c_str());
  return 0;
}

}  // namespace

Command graph_command() {
  std::string passes;
  for (const auto& p : graph::static_graph::pass_names()) passes += (passes.empty() ? "" : ", ") + p;
  return {"graph",
          "the static strategy's graph of a model before and after its passes, as Graphviz dot",
          "Writes the static-graph strategy's training graph of a model before and after the graph\n"
          "passes as Graphviz dot: FILE.before.dot and FILE.after.dot (a trailing .dot of FILE is dropped).",
          {
              {"framework", "NAME", "the framework whose preset gives the model and optimizer (default caffe)"},
              {"dataset", "NAME", "data set whose family picks the preset (default fashion-mnist)"},
              {"preset", "NAME|FILE", "training recipe (default: FRAMEWORK-FAMILY)"},
              {"model", "NAME|FILE", "model file or zoo name (default: the preset's)"},
              {"batch", "N", "batch size of the graph (default: the preset's)"},
              {"precision", "f32|f64", "floating-point type (default: the preset's)"},
              {"passes-off", "LIST", "comma-separated passes to switch off: " + passes},
              {"dot", "FILE", "where to write the two graphs (required)"},
          },
          graph_main};
}

}  // namespace ablate::bench::cli
