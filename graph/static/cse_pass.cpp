// Common subexpression elimination (see passes.h): in execution order, a node whose op,
// attributes and inputs equal an earlier node's is replaced by it; since readers are
// redirected before they are keyed, chains of duplicates merge in one sweep. Stateful nodes
// (placeholders, variables, dropout masks, checks, updates) are never merged.
#include <map>

#include "graph/static/passes.h"

namespace ablate::graph::static_graph {

int cse_pass(Graph& g) {
  std::map<std::string, int> seen;
  int merged = 0;
  for (int id : g.execution_order()) {
    const Node& n = g.node(id);
    if (is_stateful(n.op) || !n.control.empty()) continue;
    std::string key = attribute_signature(n) + "|in";
    for (const Value& v : n.inputs) {
      key += ' ';
      key += std::to_string(v.node);
      key += ':';
      key += std::to_string(v.output);
    }
    auto [it, fresh] = seen.emplace(key, id);
    if (fresh) continue;
    for (int k = 0; k < static_cast<int>(n.outputs.size()); ++k) g.replace_uses({id, k}, {it->second, k});
    replace_control(g, id, it->second);
    g.node(id).dead = true;
    ++merged;
  }
  return merged;
}

}  // namespace ablate::graph::static_graph
