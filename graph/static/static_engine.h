// Factory of the static-graph strategy (TensorFlow 1.x, Theano): the whole training step is
// one graph (training_graph.h), optimized by the named passes and compiled once into a
// Session per batch size, then run with the batch as feeds (session.h).
#pragma once

#include <memory>

#include "graph/engine.h"

namespace ablate::graph::static_graph {

// Throws std::invalid_argument for options the static engine rejects: an unknown pass or
// executor, inter_op_threads < 1, weight averaging (not in the static engine yet), a bad
// optimizer; and for a model it cannot build.
std::unique_ptr<Engine> make_static_engine(const models::ModelSpec& spec, kernels::Backend& backend,
                                           const EngineOptions& options);

}  // namespace ablate::graph::static_graph
