// A static-graph node's op label from its name (see node_label.h).
#include "graph/static/node_label.h"

#include <string_view>

namespace ablate::graph::static_graph {

kernels::OpLabel node_label(const Node& node) {
  const std::string_view name = node.name;
  auto first_segment = [](std::string_view s) { return s.substr(0, s.find('/')); };
  kernels::OpLabel label{"forward", first_segment(name), name};
  if (name.starts_with("grad/")) {
    label.phase = "backward";
    label.layer = first_segment(name.substr(5));
  } else if (name.starts_with("update/")) {
    label.phase = "update";
    label.layer = kernels::layer_of_parameter(first_segment(name.substr(7)));
  }
  return label;
}

}  // namespace ablate::graph::static_graph
