// The training graph of a model before and after compilation, as Graphviz dot text and the
// compiler's figures, for `ablate graph` (bench/cli/graph_command.cpp) and for teaching: the
// "before" graph is what the builder, the differentiation and the optimizer wrote; the
// "after" graph is what the session runs (passes applied, in-place marks, and the orderings
// that variable writes, in-place rewrites and buffer reuse add, dashed).
#pragma once

#include <string>

#include "graph/engine.h"
#include "graph/static/session.h"

namespace ablate::graph::static_graph {

struct GraphDump {
  std::string before_dot, after_dot;
  SessionStats stats;
};

// Builds and compiles the training graph of `spec` for options.batch samples (the passes
// of options.disabled_passes off) on `backend`, with the initial parameters of options.seed.
// The options and the model are checked as make_engine checks them.
GraphDump dump_training_graph(const models::ModelSpec& spec, const EngineOptions& options, kernels::Backend& backend);

}  // namespace ablate::graph::static_graph
