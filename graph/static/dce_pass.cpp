// Dead-code elimination (see passes.h): everything the fetches and targets need, through
// data and control edges, stays; the rest is marked dead.
#include <vector>

#include "graph/static/passes.h"

namespace ablate::graph::static_graph {

int dce_pass(Graph& g) {
  std::vector<char> needed(static_cast<std::size_t>(g.size()), 0);
  std::vector<int> stack;
  auto need = [&](int id) {
    if (!needed[static_cast<std::size_t>(id)]) {
      needed[static_cast<std::size_t>(id)] = 1;
      stack.push_back(id);
    }
  };
  for (const Value& v : g.fetches)
    if (v.valid()) need(v.node);  // an invalid fetch: given up by update_fusion
  for (int t : g.targets) need(t);
  while (!stack.empty()) {
    const int id = stack.back();
    stack.pop_back();
    for (const Value& v : g.node(id).inputs) need(v.node);
    for (int c : g.node(id).control) need(c);
  }
  int removed = 0;
  for (int id = 0; id < g.size(); ++id)
    if (!g.node(id).dead && !needed[static_cast<std::size_t>(id)]) {
      g.node(id).dead = true;
      ++removed;
    }
  return removed;
}

}  // namespace ablate::graph::static_graph
