// Factory of the static-graph strategy (TensorFlow 1.x, Theano): the whole training step is
// one graph (training_graph.h), optimized by the named passes and compiled once into a
// Session per batch size, then run with the batch as feeds (session.h). Reached through the
// table of strategies (graph/engine.h make_engine), which checks the options first.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "graph/engine.h"

namespace ablate::graph::static_graph {

std::unique_ptr<Engine> make_static_engine(const models::CheckedModel& model, kernels::Backend& backend,
                                           const EngineOptions& options);
// Its switches: every disabled pass a pass of the pipeline (passes.h), inter_op_threads >= 1.
void check_static_options(const EngineOptions& options);
// The catalogued layer types without a graph builder (layer_graph.h).
std::vector<std::string> missing_builders();

}  // namespace ablate::graph::static_graph
