// Graphviz output of a static graph (see dot_writer.h).
#include "graph/static/dot_writer.h"

#include <set>

namespace ablate::graph::static_graph {
namespace {

// Quotes and backslashes escaped; a line break becomes dot's \n.
std::string escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

const char* colour(const Node& n) {
  if (n.op == OpKind::fused_elementwise || n.attrs.conv.activation) return "palegreen";  // a conv with an epilogue too
  if (is_update(n.op)) return "lightcoral";
  if (n.op == OpKind::allreduce_mean) return "plum";
  if (n.op == OpKind::constant && n.name.find("/folded") != std::string::npos) return "lightblue";
  if (is_source(n.op)) return "lightgrey";
  if (n.name.rfind("grad/", 0) == 0) return "navajowhite";
  return "white";
}

std::string label(const Node& n) {
  std::string text = n.name + "\n" + op_name(n.op);
  if (n.op == OpKind::fused_elementwise) {
    text += " [";
    for (std::size_t i = 0; i < n.attrs.steps.size(); ++i) {
      const FusedStep& s = n.attrs.steps[i];
      text += (i ? ", " : "") + std::string(op_name(s.op));
      if (s.op == OpKind::activation || s.op == OpKind::activation_grad)
        text += std::string(":") + kernels::activation_name(s.activation);
    }
    text += "]";
  } else if (n.attrs.conv.activation) {  // conv_activation_fusion's epilogue
    text += std::string(" [") + (n.inputs.size() > 2 ? "bias_add, " : "") + "activation:" +
            kernels::activation_name(*n.attrs.conv.activation) + "]";
  } else if (n.op == OpKind::activation || n.op == OpKind::activation_grad) {
    text += std::string(" ") + kernels::activation_name(n.attrs.activation);
  }
  for (const TensorType& t : n.outputs)
    text += "\n" + std::string(kernels::dtype_name(t.dtype)) +
            (t.opaque ? std::string("[workspace]") : t.host ? std::string(" host scalar") : kernels::shape_string(t.shape)) +
            (t.channel_block ? " nChw" + std::to_string(t.channel_block) + "c" : std::string());
  if (n.inplace_input >= 0) text += "\n(in place)";
  return text;
}

}  // namespace

std::string to_dot(const Graph& g, const std::string& title) {
  std::string dot = "digraph \"" + escaped(title) + "\" {\n  rankdir=TB;\n  label=\"" + escaped(title) +
                    "\";\n  node [shape=box, style=filled, fontname=\"Helvetica\", fontsize=10];\n";
  const std::set<Value> fetched(g.fetches.begin(), g.fetches.end());
  for (int id : g.execution_order()) {
    const Node& n = g.node(id);
    bool is_fetched = false;
    for (int k = 0; k < static_cast<int>(n.outputs.size()); ++k) is_fetched = is_fetched || fetched.count({id, k});
    dot += "  n" + std::to_string(id) + " [label=\"" + escaped(label(n)) + "\", fillcolor=" + colour(n) +
           (is_fetched ? ", peripheries=2" : "") + "];\n";
  }
  for (int id : g.execution_order()) {
    const Node& n = g.node(id);
    for (std::size_t s = 0; s < n.inputs.size(); ++s) {
      dot += "  n" + std::to_string(n.inputs[s].node) + " -> n" + std::to_string(id);
      if (static_cast<int>(s) == n.inplace_input) dot += " [style=bold, label=\"in place\"]";
      dot += ";\n";
    }
    for (int c : n.control) dot += "  n" + std::to_string(c) + " -> n" + std::to_string(id) + " [style=dashed];\n";
  }
  return dot + "}\n";
}

}  // namespace ablate::graph::static_graph
