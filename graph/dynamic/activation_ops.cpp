// Element-wise ops of the tape whose backward reads the output or a mask: relu, tanh,
// sigmoid (backward from y, as Backend::activation_backward; an activation whose backward
// reads x keeps x instead), log_softmax (dx = dy -
// exp(y) sum dy), and dropout (y = x * mask, dx = dy * mask; the mask is Backend::dropout_mask,
// the same counter-based draw as the layer-wise engine's for the same seed).
#include "graph/dropout_seed.h"
#include "graph/dynamic/op_record.h"
#include "graph/dynamic/ops.h"

namespace ablate::graph::dynamic {
namespace {

struct ActivationNode final : Node {
  kernels::Activation a = kernels::Activation::relu;
  kernels::Tensor kept;  // y, or x for an activation whose backward reads its input
  const char* name() const override { return kernels::activation_name(a); }
  void backward(const kernels::Tensor& dy, InputGrads& g) override {
    g.backend().activation_backward(a, kept, dy, g.out(0, kept));
  }
  std::vector<kernels::Tensor*> saved() override { return {&kept}; }
};

struct LogSoftmaxNode final : Node {
  kernels::Tensor y;
  const char* name() const override { return "log_softmax"; }
  void backward(const kernels::Tensor& dy, InputGrads& g) override {
    g.backend().log_softmax_backward(y, dy, g.out(0, y));
  }
  std::vector<kernels::Tensor*> saved() override { return {&y}; }
};

struct DropoutNode final : Node {
  kernels::Tensor mask;
  const char* name() const override { return "dropout"; }
  void backward(const kernels::Tensor& dy, InputGrads& g) override { g.backend().mul(dy, mask, g.out(0, mask)); }
  std::vector<kernels::Tensor*> saved() override { return {&mask}; }
};

}  // namespace

Variable activation(const Variable& x, kernels::Activation a, bool backward_from_input) {
  Context& c = op_context(kernels::activation_name(a), {&x});
  kernels::Tensor y = c.empty_like(x.value());  // in x's layout (context.h)
  c.backend().activation_forward(a, x.value(), y);
  return op_output(c, y, {&x}, [&] {
    auto node = std::make_shared<ActivationNode>();
    node->a = a;
    node->kept = backward_from_input ? x.value() : y;
    return node;
  });
}

Variable relu(const Variable& x) { return activation(x, kernels::Activation::relu); }
Variable tanh(const Variable& x) { return activation(x, kernels::Activation::tanh); }
Variable sigmoid(const Variable& x) { return activation(x, kernels::Activation::sigmoid); }

Variable log_softmax(const Variable& x) {
  Context& c = op_context("log_softmax", {&x});
  require(x.value().ndim() == 2, "log_softmax", "input", x.value(), "[N, K]");
  kernels::Tensor y = c.empty(x.shape(), x.dtype());
  c.backend().log_softmax_forward(x.value(), y);
  return op_output(c, y, {&x}, [&] {
    auto node = std::make_shared<LogSoftmaxNode>();
    node->y = y;
    return node;
  });
}

Variable dropout(const Variable& x, const kernels::Tensor& mask) {
  Context& c = op_context("dropout", {&x});
  require(mask.shape() == x.shape() && mask.dtype() == x.dtype(), "dropout", "mask", mask,
          [&] { return "the input's " + x.value().describe(); });
  kernels::Tensor y = c.empty(x.shape(), x.dtype());
  c.backend().mul(x.value(), mask, y);
  return op_output(c, std::move(y), {&x}, [&] {
    auto node = std::make_shared<DropoutNode>();
    node->mask = mask;
    return node;
  });
}

Variable dropout(const Variable& x, double keep, std::uint64_t seed, std::int64_t first_sample) {
  Context& c = op_context("dropout", {&x});
  if (!(keep > 0 && keep <= 1))
    throw std::invalid_argument("dropout: keep probability " + std::to_string(keep) + "; expected one in (0, 1]");
  kernels::Tensor mask = c.empty(x.shape(), x.dtype());
  c.backend().dropout_mask(mask, keep, seed, graph::dropout_first_index(first_sample, mask));
  return dropout(x, mask);
}

}  // namespace ablate::graph::dynamic
