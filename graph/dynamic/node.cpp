// Gradient hand-over between a node and its inputs (see node.h): first gradients are written
// in place, later ones accumulated with Backend::add, as PyTorch's InputBuffer and
// AccumulateGrad do.
#include "graph/dynamic/node.h"

#include <stdexcept>
#include <string>

namespace ablate::graph::dynamic {

bool InputGrads::wanted(std::size_t i) const { return i < node_.edges.size() && node_.edges[i].wanted(); }

kernels::Tensor& InputGrads::target(std::size_t i, const kernels::Shape& shape, kernels::DType dtype, int channel_block,
                                    bool& first) {
  if (!wanted(i))
    throw std::logic_error(std::string("node '") + node_.name() + "': input " + std::to_string(i) +
                           " needs no gradient");
  Edge& edge = node_.edges[i];
  kernels::Tensor& grad = edge.node ? edge.node->grad : edge.leaf->grad;
  first = grad.empty() || (edge.leaf && edge.leaf->grad_is_zero);
  if (grad.empty()) grad = context_.empty(shape, dtype, channel_block);
  if (edge.leaf) edge.leaf->grad_is_zero = false;
  if (grad.shape() != shape || grad.dtype() != dtype || grad.channel_block() != channel_block)
    throw std::logic_error(std::string("node '") + node_.name() + "': gradient of input " + std::to_string(i) +
                           " is " + grad.describe() + "; expected " +
                           std::string(kernels::dtype_name(dtype)) + kernels::shape_string(shape) +
                           (channel_block ? " nChw" + std::to_string(channel_block) + "c" : ""));
  return grad;
}

kernels::Tensor& InputGrads::out(std::size_t i, const kernels::Shape& shape, kernels::DType dtype, int channel_block) {
  bool first = false;
  kernels::Tensor& grad = target(i, shape, dtype, channel_block, first);
  if (first) return grad;
  Pending& p = next_pending();
  p.target = &grad;
  p.temp = context_.empty(shape, dtype, channel_block);
  return p.temp;
}

void InputGrads::pass(std::size_t i, const kernels::Tensor& g) {
  if (!wanted(i)) return;
  Edge& edge = node_.edges[i];
  if (edge.node && edge.node->grad.empty() && !shared_) {
    edge.node->grad = g;  // no copy: g is this node's own gradient, which it will not read again
    shared_ = true;
    shared_with_ = edge.node.get();
    return;
  }
  if (edge.node && edge.node.get() == shared_with_) {  // an in-place sum would change g itself
    kernels::Tensor sum = context_.empty_like(g);
    backend().add(edge.node->grad, g, sum);
    edge.node->grad = std::move(sum);
    shared_with_ = nullptr;
    return;
  }
  bool first = false;
  kernels::Tensor& grad = target(i, g.shape(), g.dtype(), g.channel_block(), first);
  if (first)
    backend().copy(g, grad);
  else
    backend().add(grad, g, grad);
}

InputGrads::Pending& InputGrads::next_pending() {
  if (pending_count_ < pending_.size()) return pending_[pending_count_++];
  return overflow_.emplace_back();
}

void InputGrads::finish() {
  auto add = [&](Pending& p) {
    backend().add(*p.target, p.temp, *p.target);
    p.temp = {};
  };
  for (std::size_t k = 0; k < pending_count_; ++k) add(pending_[k]);
  for (Pending& p : overflow_) add(p);
  pending_count_ = 0;
  overflow_.clear();
}

}  // namespace ablate::graph::dynamic
