// Graphviz dot text of a static graph, for `ablate graph --dot FILE` (before and after the
// passes): one box per live node labelled with its name, op and output shapes; data edges
// solid, control edges (orderings) dashed; an in-place output's edge from the input it
// overwrites drawn bold. Colours: sources grey, gradient nodes orange, updates red, fused
// nodes green, folded constants blue.
#pragma once

#include <string>

#include "graph/static/graph_ir.h"

namespace ablate::graph::static_graph {

std::string to_dot(const Graph& graph, const std::string& title);

}  // namespace ablate::graph::static_graph
