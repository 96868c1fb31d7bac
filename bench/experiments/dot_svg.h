// A small layered drawing of the dot text that ablate writes itself (graph/static/dot_writer.h,
// graph/layerwise/net_dot.h, graph/dynamic/tape_dot.h) as SVG, so that `ablate explain`'s
// index.html shows its graphs inline without Graphviz or a script: each node in the rank of
// its longest path from a source (edges point down; constraint=false edges do not count), nodes of a rank side by side in the
// order the file lists them, boxes sized to their label lines, filled with their fillcolor,
// edges as straight lines (dashed where the dot edge is). Not a dot implementation: nodes
// are `ID [label="...", fillcolor=...];` lines and edges `A -> B [...];` lines; the rest is
// ignored.
#pragma once

#include <string>

namespace ablate::bench::experiments {

std::string dot_to_svg(const std::string& dot);

}  // namespace ablate::bench::experiments
