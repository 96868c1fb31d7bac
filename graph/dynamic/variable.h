// Variable: an eager tensor of the tape, as torch.Tensor with autograd (and Torch7's
// nn modules' output/gradInput pairs): a value, whether it requires a gradient, and the node
// of the tape that made it (none for a leaf: a parameter or an input). A leaf that requires
// a gradient accumulates it in grad() on every backward() that reaches it, until zero_grad().
// Copies of a Variable share one impl, as torch.Tensor handles do.
#pragma once

#include <memory>

#include "graph/dynamic/context.h"
#include "kernels/tensor.h"

namespace ablate::graph::dynamic {

class Node;

struct VariableImpl {
  Context* context = nullptr;
  kernels::Tensor value;
  kernels::Tensor grad;          // leaves: the accumulated gradient (empty until the first one)
  bool grad_is_zero = false;     // set by zero_grad(): the next gradient overwrites instead of adding
  bool requires_grad = false;
  std::shared_ptr<Node> node;    // the op that made it; null for a leaf
};

class Variable {
 public:
  Variable() = default;
  // A leaf holding `value` (on the context's device).
  Variable(Context& context, kernels::Tensor value, bool requires_grad = false);
  // The output of a recorded op (requires_grad, not a leaf).
  static Variable from_node(Context& context, kernels::Tensor value, std::shared_ptr<Node> node);

  bool defined() const { return impl_ != nullptr; }
  Context& context() const;
  const kernels::Tensor& value() const;
  const kernels::Shape& shape() const { return value().shape(); }
  kernels::DType dtype() const { return value().dtype(); }
  bool requires_grad() const { return impl_ && impl_->requires_grad; }
  bool is_leaf() const { return !impl_ || !impl_->node; }
  const std::shared_ptr<Node>& node() const;
  // The leaf's accumulated gradient (empty before any backward reached it).
  kernels::Tensor& grad();
  const kernels::Tensor& grad() const;
  // Torch7's zeroGradParameters(): grad := 0 (allocated when absent; the storage is kept).
  void zero_grad();
  // Gives a leaf a gradient tensor of its own (the engine's parameters keep theirs for the
  // optimizer); it must have the value's shape and dtype.
  void set_grad(kernels::Tensor grad);
  const std::shared_ptr<VariableImpl>& impl() const { return impl_; }

 private:
  void check() const;
  std::shared_ptr<VariableImpl> impl_;
};

}  // namespace ablate::graph::dynamic
