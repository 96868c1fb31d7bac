// Weight gradient + update fusion (see passes.h): a fully connected layer's weight gradient
// whose one reader is its parameter's update,
//   linear_grad_weight(x, dy) -> dw     apply_*(w, dw, slots...)
// becomes one node
//   linear_grad_weight_update(x, dy, w, slots...)
// that computes dw a band of rows at a time and updates those rows of w and the slots while
// the band is in cache (Backend::linear_backward_weights_update): the gradient is never
// written to memory whole (TF MNIST's fc1: 12.8 MB a step written and read back less). PyTorch
// offers the same trade as "optimizer in backward" (an optimizer step per parameter from a
// post-accumulate-grad hook); TensorFlow 1.x and Caffe kept the two apart.
// Conditions: the gradient dw is read by the apply node alone (not through an all-reduce: data
// parallel runs keep the whole gradient), the product has no bias output (the graphs add biases
// as bias_add nodes of their own) and no control edges, and the update is one Backend op (not
// adam or adamw with a weight decay, whose decay is a pass of its own).
// The gradient is given up as a fetch (its fetch becomes an invalid Value: Session::fetch
// returns an empty tensor, so Parameter::grad is empty and check_finite_gradients passes it
// over; the fused op checks each band instead). The fused node runs where the product ran, or
// just after the last other reader of w if that is later (the input gradient dx = dy w, which
// must see w before the update): x and dy are freed as early as before, and under the inter-op
// pool the update overlaps the rest of the backward pass.
// The loss check (check_numerics) runs right after the loss (training_graph.cpp), so the fused
// node, which keeps the apply node's control edge on it, still updates nothing after a NaN loss.
// Pipeline position: after elementwise_fusion and before blocked_layout and inplace, so that
// the in-place pass counts the fused node among x's and dy's readers.
#include <algorithm>
#include <optional>

#include "graph/optim/update_rule.h"
#include "graph/static/passes.h"

namespace ablate::graph::static_graph {
namespace {

bool is_apply(OpKind op) {
  return op == OpKind::apply_caffe_sgd || op == OpKind::apply_torch_sgd || op == OpKind::apply_adam;
}

// Folds the gradient of apply node `id` into it; false when the pair does not qualify.
bool fold(Graph& g, int id, const std::vector<std::vector<std::vector<Use>>>& uses) {
  const Node& apply = g.node(id);
  if (!is_apply(apply.op) || apply.inputs.size() < 3) return false;
  const Value grad = apply.inputs[1];
  const Node& product = g.node(grad.node);
  if (product.op != OpKind::linear_grad_weight || product.attrs.bias || !product.control.empty()) return false;
  if (uses[static_cast<std::size_t>(grad.node)][0].size() != 1) return false;
  if (!update_params(g.optimizer, UpdateStep{1.0, 0, true}, apply.attrs.lr_mult, apply.attrs.decay_mult)) return false;
  // Place: right after the product or the last other reader of w (the input gradient, which
  // must read w before it changes), whichever comes later; the apply node came after both.
  double after = product.order;
  for (const Use& u : uses[static_cast<std::size_t>(apply.inputs[0].node)][static_cast<std::size_t>(apply.inputs[0].output)])
    if (u.node != id) after = std::max(after, g.node(u.node).order);
  if (after >= apply.order) return false;
  double next = apply.order;  // the first node after `after`
  for (int other : g.execution_order())
    if (g.node(other).order > after) {
      next = g.node(other).order;
      break;
    }
  const double order = (after + next) / 2;

  std::vector<Value> inputs{product.inputs[0], product.inputs[1], apply.inputs[0]};  // x, dy, w
  inputs.insert(inputs.end(), apply.inputs.begin() + 2, apply.inputs.end());          // w's slots
  Attrs a;
  a.shape = product.attrs.shape;
  a.lr_mult = apply.attrs.lr_mult;
  a.decay_mult = apply.attrs.decay_mult;
  // The slots' variable nodes were added with the updates, after the backward pass: sources,
  // so they move up to the fused node's place (its id is larger: they sort before it).
  for (std::size_t k = 2; k < apply.inputs.size(); ++k)
    if (g.node(apply.inputs[k].node).op != OpKind::variable) return false;
  for (std::size_t k = 2; k < apply.inputs.size(); ++k)
    g.node(apply.inputs[k].node).order = std::min(g.node(apply.inputs[k].node).order, order);
  const std::string name = apply.name + "+" + last_segment(product.name);
  const std::vector<int> control = apply.control;
  const int product_id = grad.node;
  const int fused = g.add(OpKind::linear_grad_weight_update, name, std::move(inputs), a);
  Node& f = g.node(fused);
  f.order = order;
  f.control = control;
  for (Value& fetch : g.fetches)
    if (fetch == grad) fetch = Value{};  // given up: the gradient is never whole
  for (int& target : g.targets)
    if (target == id) target = fused;
  replace_control(g, id, fused);
  replace_control(g, product_id, fused);
  g.node(id).dead = true;
  g.node(product_id).dead = true;
  return true;
}

}  // namespace

int update_fusion_pass(Graph& g) {
  int folded = 0;
  const std::vector<int> order = g.execution_order();
  for (int id : order) {
    if (g.node(id).dead) continue;
    if (fold(g, id, g.uses())) ++folded;
  }
  return folded;
}

}  // namespace ablate::graph::static_graph
