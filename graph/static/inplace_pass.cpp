// In-place rewriting (see passes.h). An elementwise node (activation, activation_grad over
// dy, bias_add, mul, add, add_n over one of its first two inputs, scale, fused) may write
// its output over an operand v of its chain slots when: v is an op's output (never a
// placeholder, variable or constant), of the same type, not fetched, not already
// overwritten by another node, and this node is v's last reader in the execution order (on
// every branch: v's readers are all its readers). Like Theano's destroy handler, the rewrite
// adds orderings: every other reader of v runs before the node (control edges), so the
// parallel executor keeps it safe. The memory planner realises the alias (memory_plan.h).
#include <algorithm>
#include <set>

#include "graph/static/passes.h"

namespace ablate::graph::static_graph {

int inplace_pass(Graph& g) {
  const std::vector<int> order = g.execution_order();
  std::vector<int> position(static_cast<std::size_t>(g.size()), -1);
  for (std::size_t i = 0; i < order.size(); ++i) position[static_cast<std::size_t>(order[i])] = static_cast<int>(i);
  const auto uses = g.uses();
  std::set<Value> fetched(g.fetches.begin(), g.fetches.end()), overwritten;
  int rewritten = 0;
  for (int id : order) {
    Node& n = g.node(id);
    if (n.inplace_input >= 0) continue;
    for (int slot : chain_slots(n)) {
      const Value v = n.inputs[static_cast<std::size_t>(slot)];
      const Node& p = g.node(v.node);
      const TensorType& t = g.type(v);
      if (p.op == OpKind::placeholder || p.op == OpKind::variable || p.op == OpKind::constant) continue;
      if (t.host || t.opaque || t.shape != n.outputs[0].shape || t.dtype != n.outputs[0].dtype ||
          t.channel_block != n.outputs[0].channel_block)
        continue;
      if (fetched.count(v) || overwritten.count(v)) continue;
      // A fused chain, and add_n, read their other operands after the first write: none may be v.
      if ((n.op == OpKind::fused_elementwise || n.op == OpKind::add_n) &&
          std::count(n.inputs.begin(), n.inputs.end(), v) > 1)
        continue;
      const auto& readers = uses[static_cast<std::size_t>(v.node)][static_cast<std::size_t>(v.output)];
      const bool last = std::all_of(readers.begin(), readers.end(), [&](const Use& u) {
        return position[static_cast<std::size_t>(u.node)] <= position[static_cast<std::size_t>(id)];
      });
      if (!last) continue;
      n.inplace_input = slot;
      overwritten.insert(v);
      for (const Use& u : readers)
        if (u.node != id && std::find(n.control.begin(), n.control.end(), u.node) == n.control.end())
          n.control.push_back(u.node);
      ++rewritten;
      break;
    }
  }
  return rewritten;
}

}  // namespace ablate::graph::static_graph
