// Variable handles and leaf gradients (see variable.h).
#include "graph/dynamic/variable.h"

#include <stdexcept>

#include "graph/dynamic/node.h"

namespace ablate::graph::dynamic {

Variable::Variable(Context& context, kernels::Tensor value, bool requires_grad)
    : impl_(std::make_shared<VariableImpl>()) {
  if (value.empty()) throw std::invalid_argument("a Variable needs a value; got an empty tensor");
  impl_->context = &context;
  impl_->value = std::move(value);
  impl_->requires_grad = requires_grad;
}

Variable Variable::from_node(Context& context, kernels::Tensor value, std::shared_ptr<Node> node) {
  Variable v;
  v.impl_ = std::make_shared<VariableImpl>();
  v.impl_->context = &context;
  v.impl_->value = std::move(value);
  v.impl_->requires_grad = true;
  v.impl_->node = std::move(node);
  return v;
}

void Variable::check() const {
  if (!impl_) throw std::logic_error("use of an undefined Variable");
}

Context& Variable::context() const {
  check();
  return *impl_->context;
}

const kernels::Tensor& Variable::value() const {
  check();
  return impl_->value;
}

const std::shared_ptr<Node>& Variable::node() const {
  check();
  return impl_->node;
}

kernels::Tensor& Variable::grad() {
  check();
  return impl_->grad;
}

const kernels::Tensor& Variable::grad() const {
  check();
  return impl_->grad;
}

void Variable::zero_grad() {
  check();
  if (impl_->grad.empty()) impl_->grad = impl_->context->empty(impl_->value.shape(), impl_->value.dtype());
  impl_->context->backend().fill(impl_->grad, 0.0);
  impl_->grad_is_zero = true;
}

void Variable::set_grad(kernels::Tensor grad) {
  check();
  if (grad.shape() != impl_->value.shape() || grad.dtype() != impl_->value.dtype())
    throw std::invalid_argument("gradient " + grad.describe() + " for a variable " + impl_->value.describe() +
                                "; expected the value's shape and dtype");
  impl_->grad = std::move(grad);
  impl_->grad_is_zero = false;
}

}  // namespace ablate::graph::dynamic
