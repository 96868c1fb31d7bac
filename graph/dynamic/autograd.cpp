// The reverse walk of the tape (see autograd.h).
#include "graph/dynamic/autograd.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "graph/dynamic/node.h"
#include "kernels/op_label.h"

namespace ablate::graph::dynamic {
namespace {

// Every node reachable from `root` through edges, each once (iterative: long chains are fine).
std::vector<Node*> reachable(Node* root, std::uint64_t mark) {
  std::vector<Node*> found, stack{root};
  root->visit = mark;
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    found.push_back(n);
    for (const Edge& e : n->edges)
      if (e.node && e.node->visit != mark) {
        e.node->visit = mark;
        stack.push_back(e.node.get());
      }
  }
  return found;
}

// The seed gradient of the root: `seed` in every element, where the root's value lives.
kernels::Tensor seed_gradient(const Variable& root, double seed) {
  Context& c = root.context();
  const kernels::Tensor& value = root.value();
  if (value.device() == kernels::Device::cpu && c.backend().device() != kernels::Device::cpu) {
    kernels::Tensor g(value.shape(), value.dtype(), &c.host_allocator());
    for (std::int64_t i = 0; i < g.numel(); ++i) g.set(i, seed);
    return g;
  }
  kernels::Tensor g = c.empty(value.shape(), value.dtype());
  c.backend().fill(g, seed);
  return g;
}

}  // namespace

void backward(const Variable& root, double seed) {
  if (!root.defined()) throw std::invalid_argument("backward of an undefined Variable");
  if (!root.requires_grad())
    throw std::invalid_argument("backward of " + root.value().describe() +
                                ": it does not require a gradient (no input requires one, or it was made under "
                                "a no-grad scope)");
  if (root.value().numel() != 1)
    throw std::invalid_argument("backward of " + root.value().describe() + ": expected a scalar (one element)");
  Context& c = root.context();
  const kernels::OpLabelScope seed_label(
      {"backward", root.is_leaf() ? std::string_view() : root.node()->layer, "seed"});
  kernels::Tensor g = seed_gradient(root, seed);
  if (root.is_leaf()) {
    VariableImpl& leaf = *root.impl();
    if (leaf.grad.empty() || leaf.grad_is_zero)
      leaf.grad = g;
    else
      c.backend().add(leaf.grad, g, leaf.grad);
    leaf.grad_is_zero = false;
    return;
  }
  std::vector<Node*> order = reachable(root.node().get(), c.next_sequence());
  std::sort(order.begin(), order.end(), [](const Node* a, const Node* b) { return a->sequence > b->sequence; });
  root.node()->grad = std::move(g);
  for (Node* n : order) {
    if (n->released)
      throw std::logic_error(std::string("backward through node '") + n->name() +
                             "' a second time: its saved tensors were freed after the first backward");
    if (n->grad.empty()) continue;  // no gradient reached it
    const kernels::OpLabelScope label({"backward", n->layer, n->name(), static_cast<std::int64_t>(n->sequence)});
    InputGrads grads(c, *n);
    n->backward(n->grad, grads);
    grads.finish();
    n->grad = {};
    n->release();
    n->released = true;
  }
}

}  // namespace ablate::graph::dynamic

