// The training graph of a model before and after compilation, as Graphviz dot text and the
// compiler's figures, for `ablate graph` (bench/cli/graph_command.cpp) and for teaching: the
// "before" graph is what the builder, the differentiation and the optimizer wrote; the
// "after" graph is what the session runs (passes applied, in-place marks, and the orderings
// that variable writes, in-place rewrites and buffer reuse add, dashed). For `ablate explain`
// also the graph after each pass that ran, as TVM's pass instruments dump it, and the memory
// plan as an SVG (memory_plan_svg.h).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "graph/engine.h"
#include "graph/static/session.h"

namespace ablate::graph::static_graph {

struct GraphDump {
  std::string before_dot, after_dot;
  SessionStats stats;
  // (pass, dot of the graph after it) for every pass that ran, in order: the rewriting passes,
  // then the memory pass in effect (memory_planning, session_buffers or refcount_allocation),
  // whose graph, with the orderings that writes and buffer reuse add, is after_dot.
  std::vector<std::pair<std::string, std::string>> pass_dots;
  std::string memory_svg;
};

// Builds and compiles the training graph of `spec` for options.batch samples (the passes
// of options.disabled_passes off) on `backend`, with the initial parameters of options.seed.
// The options and the model are checked as make_engine checks them.
GraphDump dump_training_graph(const models::ModelSpec& spec, const EngineOptions& options, kernels::Backend& backend);

}  // namespace ablate::graph::static_graph
