// A net as Graphviz dot (see net_dot.h).
#include "graph/layerwise/net_dot.h"

#include <map>

namespace ablate::graph::layerwise {

std::string net_dot(const Net& net, const std::string& title) {
  std::string dot = "digraph net {\n  rankdir=TB;\n  label=\"" + title + "\";\n  node [fontname=\"sans-serif\"];\n";
  std::map<const Blob*, std::string> blob_ids;
  auto blob_id = [&](const Blob* b) {
    auto [it, fresh] = blob_ids.try_emplace(b, "b" + std::to_string(blob_ids.size()));
    if (fresh)
      dot += "  " + it->second + " [shape=ellipse, label=\"" + b->name() + "\\n" + kernels::shape_string(b->shape()) +
             "\"];\n";
    return it->second;
  };
  for (std::size_t i = 0; i < net.layers().size(); ++i) {
    const Layer& layer = *net.layers()[i];
    const std::string id = "l" + std::to_string(i);
    std::string params;
    for (std::size_t b = 0; b < layer.blobs().size(); ++b)
      params += "\\n" + layer.blob_suffixes()[b] + " " + kernels::shape_string(layer.blobs()[b]->shape());
    dot += "  " + id + " [shape=box, style=filled, fillcolor=\"#dde8f8\", label=\"" + layer.name() + " (" +
           layer.type() + ")" + params + "\"];\n";
    for (const Blob* bottom : net.bottoms(i)) dot += "  " + blob_id(bottom) + " -> " + id + ";\n";
    for (const Blob* top : net.tops(i)) {
      if (net.in_place(i) && top == net.bottoms(i)[0])
        dot += "  " + id + " -> " + blob_id(top) + " [style=bold, color=\"#c03030\", label=\"in place\", constraint=false];\n";
      else
        dot += "  " + id + " -> " + blob_id(top) + ";\n";
    }
  }
  return dot + "}\n";
}

}  // namespace ablate::graph::layerwise
