// `ablate graph`: writes the static strategy's training graph of a model before and after
// the graph passes as Graphviz dot (FILE.before.dot and FILE.after.dot, where a trailing
// ".dot" of FILE is dropped first), and prints the compiler's figures: node counts, the
// rewrites of each pass, the planned and unplanned bytes. The model and recipe come from the
// framework's preset as for `ablate run`, and so are the passes: --framework tensorflow shows
// the graph TF 1.3's own pass set makes, theano FAST_RUN's; the output says which set is shown.
// --passes SPEC chooses another set, --passes-off switches passes off by name; --backend the
// backend they compile for (reference unless given).
// Render with: dot -Tsvg FILE.after.dot -o FILE.after.svg
#include <algorithm>
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

// Which passes the graph is shown with and where that set comes from: the preset's (the set
// the framework trains with, e.g. TF 1.3's own for tensorflow), --passes, --passes-off.
std::string pass_set_text(const run::RunConfig& config, const run::Flags& args, const std::vector<std::string>& off) {
  std::vector<std::string> on;
  for (const auto& p : graph::static_graph::pass_names())
    if (std::find(off.begin(), off.end(), p) == off.end()) on.push_back(p);
  std::string source = args.has("passes") ? "--passes " + args.get("passes")
                       : config.switches.passes == "all"
                           ? "every pass: the " + config.preset + " preset names no pass set"
                           : "the " + config.preset + " preset's set, what " + config.framework + " trains with";
  if (args.has("passes-off")) source += ", less --passes-off " + args.get("passes-off");
  return "passes shown: " + (on.empty() ? std::string("none") : run::join(on, ", ")) + " (" + source + ")";
}

int graph_main(const run::Flags& args) {
  if (!args.has("dot") || args.get("dot").empty()) throw std::invalid_argument("--dot FILE is required (see ablate graph --help)");
  const run::RunConfig config = run::resolve_run_config(args);
  const models::ModelSpec spec = models::load_model(config.model);
  graph::EngineOptions options = run::engine_options(config);  // the preset's passes (or --passes): what trains
  for (const std::string& off : run::split_list(args.get("passes-off", ""), true))
    if (std::find(options.disabled_passes.begin(), options.disabled_passes.end(), off) == options.disabled_passes.end())
      options.disabled_passes.push_back(off);
  // The backend whose passes the graph shows: constant folding evaluates on it, and blocked_layout
  // acts only where it has a channel-blocked layout (onednn in f32).
  auto backend = kernels::make_backend(args.get("backend", "reference"), 1);
  const auto dump = graph::static_graph::dump_training_graph(spec, options, *backend);

  std::string stem = args.get("dot");
  if (stem.size() > 4 && stem.compare(stem.size() - 4, 4, ".dot") == 0) stem.resize(stem.size() - 4);
  run::write_text_file(stem + ".before.dot", dump.before_dot, "--dot");
  run::write_text_file(stem + ".after.dot", dump.after_dot, "--dot");

  const auto& s = dump.stats;
  std::printf("%s\n", pass_set_text(config, args, options.disabled_passes).c_str());
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
          "passes as Graphviz dot: FILE.before.dot and FILE.after.dot (a trailing .dot of FILE is dropped).\n"
          "The passes are the preset's, those the framework trains with, unless --passes says otherwise.",
          {
              {"framework", "NAME", "the framework whose preset gives the model and optimizer (default caffe)"},
              {"dataset", "NAME", "data set whose family picks the preset (default fashion-mnist)"},
              {"preset", "NAME|FILE", "training recipe (default: FRAMEWORK-FAMILY)"},
              {"model", "NAME|FILE", "model file or zoo name (default: the preset's)"},
              {"batch", "N", "batch size of the graph (default: the preset's)"},
              {"precision", "f32|f64", "floating-point type (default: the preset's)"},
              {"backend", "NAME", "the backend the passes compile for (default reference; onednn in f32 shows the "
                                  "blocked_layout pass's nChw16c values and conversions)"},
              {"passes", "SPEC", "the passes to show the graph with: all, all,-cse, cse,dce, ... (default: the preset's, "
                                 "what the framework trains with)"},
              {"passes-off", "LIST", "comma-separated passes to switch off as well: " + passes},
              {"dot", "FILE", "where to write the two graphs (required)"},
          },
          graph_main};
}

}  // namespace ablate::bench::cli
