// Elementwise fusion (see passes.h). A producer P and its reader N merge into one
// fused_elementwise node when both are elementwise (bias_add, activation, activation_grad,
// mul, add, scale, or already fused), N reads P's output through a chain slot (the operand it
// could overwrite), that output has no other reader, is not fetched, and has N's type.
// The fused node's input 0 is P's chained operand; the other operands of P's and N's steps
// follow. It takes N's place in the order; P and N die. Repeats until nothing merges.
// Examples: conv -> bias_add -> relu becomes conv -> [bias_add, relu]; the dropout and ReLU
// gradients (dy * mask, then relu_grad(y, .)) become [mul, activation_grad].
#include <algorithm>
#include <set>

#include "graph/static/passes.h"

namespace ablate::graph::static_graph {
namespace {

// A node as a fused chain: its chained operand first, its steps' other operands after.
struct Chain {
  std::vector<Value> inputs;
  std::vector<FusedStep> steps;
};

// `slot`: the operand the chain runs through.
Chain as_chain(const Node& n, int slot) {
  if (n.op == OpKind::fused_elementwise) return {n.inputs, n.attrs.steps};
  Chain c{{n.inputs[static_cast<std::size_t>(slot)]}, {}};
  FusedStep s;
  s.op = n.op;
  s.activation = n.attrs.activation;
  s.alpha = n.attrs.alpha;
  for (std::size_t k = 0; k < n.inputs.size(); ++k)
    if (static_cast<int>(k) != slot) {
      s.extra = static_cast<int>(c.inputs.size());
      c.inputs.push_back(n.inputs[k]);
    }
  c.steps.push_back(s);
  return c;
}

// Appends `next` (whose input 0 is the chain's running value) to `chain`.
void append(Chain& chain, const Chain& next) {
  std::vector<int> index(next.inputs.size(), 0);
  for (std::size_t k = 1; k < next.inputs.size(); ++k) {
    auto it = std::find(chain.inputs.begin() + 1, chain.inputs.end(), next.inputs[k]);
    index[k] = static_cast<int>(it - chain.inputs.begin());
    if (it == chain.inputs.end()) chain.inputs.push_back(next.inputs[k]);
  }
  for (FusedStep s : next.steps) {
    if (s.extra >= 0) s.extra = index[static_cast<std::size_t>(s.extra)];
    chain.steps.push_back(s);
  }
}

// GELU stays its own node: a chain's activation_grad reads the activation's output, GELU's x.
bool fusable(const Node& n) {
  if ((n.op == OpKind::activation || n.op == OpKind::activation_grad) && kernels::is_gelu(n.attrs.activation)) return false;
  return is_fusable_step(n.op) || n.op == OpKind::fused_elementwise;
}

// Merges one producer into a reader; false when nothing can merge.
bool fuse_one(Graph& g) {
  const auto uses = g.uses();
  std::set<Value> fetched(g.fetches.begin(), g.fetches.end());
  for (int id : g.execution_order()) {
    const Node& n = g.node(id);
    if (!fusable(n) || !n.control.empty()) continue;
    for (int slot : chain_slots(n)) {
      const Value v = n.inputs[static_cast<std::size_t>(slot)];
      const Node& p = g.node(v.node);
      if (!fusable(p) || !p.control.empty() || v.output != 0 || fetched.count(v) || g.type(v).host) continue;
      if (uses[static_cast<std::size_t>(v.node)][0].size() != 1) continue;
      if (g.type(v).shape != n.outputs[0].shape || g.type(v).dtype != n.outputs[0].dtype) continue;
      const int p_slot = chain_slots(p).front();
      Chain chain = as_chain(p, p_slot);
      Chain next = as_chain(n, slot);
      append(chain, next);
      Attrs a;
      a.steps = chain.steps;
      const std::string name = p.name + "+" + last_segment(n.name);
      const double order = n.order;
      const int fused = g.add(OpKind::fused_elementwise, name, chain.inputs, a);
      g.node(fused).order = order;
      g.replace_uses({id, 0}, {fused, 0});
      replace_control(g, id, fused);
      g.node(id).dead = true;
      g.node(v.node).dead = true;
      return true;
    }
  }
  return false;
}

}  // namespace

int elementwise_fusion_pass(Graph& g) {
  int merged = 0;
  while (fuse_one(g)) ++merged;
  return merged;
}

}  // namespace ablate::graph::static_graph
