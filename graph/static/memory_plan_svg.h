// The static graph's memory plan (memory_plan.h) drawn as an SVG, for `ablate explain`:
// schedule position (the sequential execution order) to the right, arena offset downwards,
// one rectangle per buffer group from its producer to its last reader, tall as its bytes, so
// a learner sees which tensors share memory because their lives do not meet (ggml-alloc's and
// TFLite's arena planners). Each rectangle carries its exact figures as data-first,
// data-last, data-offset and data-bytes attributes and a <title> naming the tensor.
#pragma once

#include <string>
#include <vector>

#include "graph/static/graph_ir.h"
#include "graph/static/memory_plan.h"

namespace ablate::graph::static_graph {

// `s` with <, >, & and " as entities, for SVG and HTML text and attributes.
std::string markup_escaped(const std::string& s);

std::string memory_plan_svg(const Graph& graph, const std::vector<int>& order, const MemoryPlan& plan,
                            const std::string& title);

}  // namespace ablate::graph::static_graph
