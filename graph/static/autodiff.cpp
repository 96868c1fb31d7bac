// Reverse accumulation over the graph (see autodiff.h).
#include "graph/static/autodiff.h"

#include <map>
#include <stdexcept>

#include "graph/static/gradient_rules.h"

namespace ablate::graph::static_graph {
namespace {

bool is_float(const TensorType& t) {
  return !t.opaque && !t.host && (t.dtype == kernels::DType::f32 || t.dtype == kernels::DType::f64);
}

// Whether each value depends on a variable or a float placeholder (then it has a gradient).
std::vector<std::vector<bool>> differentiable(const Graph& g) {
  std::vector<std::vector<bool>> d(static_cast<std::size_t>(g.size()));
  for (int id : g.execution_order()) {
    const Node& n = g.node(id);
    bool any = n.op == OpKind::variable || n.op == OpKind::placeholder;
    if (!is_source(n.op))
      for (const Value& v : n.inputs) any = any || d[static_cast<std::size_t>(v.node)][static_cast<std::size_t>(v.output)];
    for (const TensorType& t : n.outputs) d[static_cast<std::size_t>(id)].push_back(any && (is_float(t) || t.host));
  }
  return d;
}

}  // namespace

std::vector<Value> add_gradients(Graph& g, Value loss, const std::vector<Value>& wrt) {
  if (!g.type(loss).host)
    throw std::invalid_argument("static graph: the loss " + g.describe(loss) + " is not a host scalar");
  const auto differentiable_values = differentiable(g);
  std::map<Value, std::vector<Value>> partial;
  kernels::Tensor one({1}, kernels::DType::f64);
  one.set(0, 1.0);
  partial[loss].push_back(g.out(g.add_constant("grad/seed", one, true)));

  // The sum of the partial gradients at v: one add_n node when v is read more than once (TF's
  // AddN in the gradients of a fan-out), the partials in the order they were made (the
  // readers of v latest first), so the sum is ((p0 + p1) + p2) + ... in a fixed order.
  auto total = [&](Value v) -> Value {
    auto it = partial.find(v);
    if (it == partial.end() || it->second.empty()) return {};
    if (it->second.size() > 1) {
      std::string name = "grad/" + g.node(v.node).name;
      if (g.node(v.node).outputs.size() > 1) name += ":" + std::to_string(v.output);
      it->second = {g.out(g.add(OpKind::add_n, name + "/add_n", it->second))};
    }
    return it->second[0];
  };

  const std::vector<int> order = g.execution_order();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int id = *it;
    if (id > loss.node || is_source(g.node(id).op)) continue;
    std::vector<Value> dout;
    bool any = false;
    for (int k = 0; k < static_cast<int>(g.node(id).outputs.size()); ++k) {
      dout.push_back(total({id, k}));
      any = any || dout.back().valid();
    }
    if (!any) continue;
    std::vector<bool> wanted;
    for (const Value& v : g.node(id).inputs)
      wanted.push_back(differentiable_values[static_cast<std::size_t>(v.node)][static_cast<std::size_t>(v.output)]);
    const std::vector<Value> inputs = g.node(id).inputs;
    const std::vector<Value> grads = input_gradients(g, id, dout, wanted);
    for (std::size_t k = 0; k < grads.size(); ++k)
      if (grads[k].valid()) partial[inputs[k]].push_back(grads[k]);
  }

  std::vector<Value> out;
  for (const Value& v : wrt) {
    Value grad = total(v);
    if (!grad.valid())
      throw std::invalid_argument("static graph: the loss " + g.describe(loss) + " does not depend on " + g.describe(v));
    out.push_back(grad);
  }
  return out;
}

}  // namespace ablate::graph::static_graph
