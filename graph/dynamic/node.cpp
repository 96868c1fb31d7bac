// Gradient hand-over between a node and its inputs (see node.h): first gradients are written
// in place, later ones accumulated with Backend::add, as PyTorch's InputBuffer and
// AccumulateGrad do.
#include "graph/dynamic/node.h"

#include <stdexcept>
#include <string>

namespace ablate::graph::dynamic {

bool InputGrads::wanted(std::size_t i) const { return i < node_.edges.size() && node_.edges[i].wanted(); }

kernels::Tensor& InputGrads::target(std::size_t i, const kernels::Shape& shape, kernels::DType dtype, bool& first) {
  if (!wanted(i))
    throw std::logic_error(std::string("node '") + node_.name() + "': input " + std::to_string(i) +
                           " needs no gradient");
  Edge& edge = node_.edges[i];
  kernels::Tensor& grad = edge.node ? edge.node->grad : edge.leaf->grad;
  first = grad.empty() || (edge.leaf && edge.leaf->grad_is_zero);
  if (grad.empty()) grad = context_.empty(shape, dtype);
  if (edge.leaf) edge.leaf->grad_is_zero = false;
  if (grad.shape() != shape || grad.dtype() != dtype)
    throw std::logic_error(std::string("node '") + node_.name() + "': gradient of input " + std::to_string(i) +
                           " is " + grad.describe() + "; expected " + std::string(kernels::dtype_name(dtype)) +
                           kernels::shape_string(shape));
  return grad;
}

kernels::Tensor& InputGrads::out(std::size_t i, const kernels::Shape& shape, kernels::DType dtype) {
  bool first = false;
  kernels::Tensor& grad = target(i, shape, dtype, first);
  if (first) return grad;
  if (pending_count_ == pending_.size())
    throw std::logic_error(std::string("node '") + node_.name() + "': too many accumulated input gradients");
  Pending& p = pending_[pending_count_++];
  p.target = &grad;
  p.temp = context_.empty(shape, dtype);
  return p.temp;
}

void InputGrads::pass(std::size_t i, const kernels::Tensor& g) {
  if (!wanted(i)) return;
  Edge& edge = node_.edges[i];
  if (edge.node && edge.node->grad.empty() && !shared_) {
    edge.node->grad = g;  // no copy: g is this node's own gradient, which it will not read again
    shared_ = true;
    return;
  }
  bool first = false;
  kernels::Tensor& grad = target(i, g.shape(), g.dtype(), first);
  if (first)
    backend().copy(g, grad);
  else
    backend().add(grad, g, grad);
}

void InputGrads::finish() {
  for (std::size_t k = 0; k < pending_count_; ++k) {
    Pending& p = pending_[k];
    backend().add(*p.target, p.temp, *p.target);
    p.temp = {};
  }
  pending_count_ = 0;
}

}  // namespace ablate::graph::dynamic
