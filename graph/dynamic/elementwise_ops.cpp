// Element-wise arithmetic and views on the tape: add of two or more inputs (every input
// receives dy: Torch7's CAddTable, whose updateGradInput hands gradOutput to each), mul (da = dy
// b, db = dy a), reshape and flatten (views of the same storage; the gradient is dy viewed in
// the input's shape). Used twice, a value gets the sum of its gradients (node.h).
#include <string>
#include <vector>

#include "graph/dynamic/op_record.h"
#include "graph/dynamic/ops.h"

namespace ablate::graph::dynamic {
namespace {

struct AddNode final : Node {
  const char* name() const override { return "add"; }
  void backward(const kernels::Tensor& dy, InputGrads& g) override {
    for (std::size_t i = 0; i < edges.size(); ++i) g.pass(i, dy);
  }
};

struct MulNode final : Node {
  kernels::Tensor a, b;
  const char* name() const override { return "mul"; }
  void backward(const kernels::Tensor& dy, InputGrads& g) override {
    if (g.wanted(0)) g.backend().mul(dy, b, g.out(0, a));
    if (g.wanted(1)) g.backend().mul(dy, a, g.out(1, b));
  }
  std::vector<kernels::Tensor*> saved() override { return {&a, &b}; }
};

struct ReshapeNode final : Node {
  kernels::Shape input_shape;
  const char* name() const override { return "reshape"; }
  void backward(const kernels::Tensor& dy, InputGrads& g) override { g.pass(0, dy.reshaped(input_shape)); }
};

void check_same(const char* op, const Variable& a, const Variable& b) {
  if (a.shape() != b.shape() || a.dtype() != b.dtype())
    throw std::invalid_argument(std::string(op) + ": operands " + a.value().describe() + " and " +
                                b.value().describe() + " differ; expected the same shape and dtype");
}

}  // namespace

Variable add(const Variable& a, const Variable& b) {
  Context& c = op_context("add", {&a, &b});
  check_same("add", a, b);
  kernels::Tensor y = c.empty_like(a.value());  // in the inputs' layout (context.h)
  c.backend().add(a.value(), b.value(), y);
  return op_output(c, std::move(y), {&a, &b}, [] { return std::make_shared<AddNode>(); });
}

// y = ((x0 + x1) + x2) + ...: the Backend's add in input order (the static graph's add chain
// sums in the same order), recorded as one node of every input.
Variable add(const std::vector<Variable>& xs) {
  std::vector<const Variable*> inputs;
  for (const Variable& x : xs) inputs.push_back(&x);
  Context& c = op_context("add", inputs);
  if (xs.size() < 2)
    throw std::invalid_argument("add: given " + std::to_string(xs.size()) + " inputs; expected two or more");
  for (std::size_t k = 1; k < xs.size(); ++k) check_same("add", xs[0], xs[k]);
  kernels::Tensor y = c.empty_like(xs[0].value());
  c.backend().add(xs[0].value(), xs[1].value(), y);
  for (std::size_t k = 2; k < xs.size(); ++k) c.backend().add(y, xs[k].value(), y);
  return op_output(c, std::move(y), inputs, [] { return std::make_shared<AddNode>(); });
}

Variable mul(const Variable& a, const Variable& b) {
  Context& c = op_context("mul", {&a, &b});
  check_same("mul", a, b);
  kernels::Tensor y = c.empty_like(a.value());
  c.backend().mul(a.value(), b.value(), y);
  return op_output(c, std::move(y), {&a, &b}, [&] {
    auto node = std::make_shared<MulNode>();
    node->a = a.value();
    node->b = b.value();
    return node;
  });
}

Variable reshape(const Variable& x, const kernels::Shape& shape) {
  Context& c = op_context("reshape", {&x});
  if (kernels::shape_numel(shape) != x.value().numel())
    throw std::invalid_argument("reshape of " + x.value().describe() + " to " + kernels::shape_string(shape) +
                                ": the element counts differ");
  return op_output(c, x.value().reshaped(shape), {&x}, [&] {
    auto node = std::make_shared<ReshapeNode>();
    node->input_shape = x.shape();
    return node;
  });
}

Variable flatten(const Variable& x) {
  op_context("flatten", {&x});
  require(x.value().ndim() >= 1 && x.shape()[0] > 0, "flatten", "input", x.value(), "[N, ...] with N >= 1");
  const std::int64_t n = x.shape()[0];
  return reshape(x, {n, x.value().numel() / n});
}

}  // namespace ablate::graph::dynamic
