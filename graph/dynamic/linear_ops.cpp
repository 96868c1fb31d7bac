// Fully connected and bias ops of the tape: linear (nn.Linear, Caffe's InnerProduct on a
// flattened input) and bias_add (Theano's bias added after pooling, Caffe's Bias layer).
#include <string>

#include "graph/dynamic/op_record.h"
#include "graph/dynamic/ops.h"

namespace ablate::graph::dynamic {
namespace {

struct LinearNode final : Node {
  kernels::Tensor x, w, b;
  const char* name() const override { return "linear"; }
  void backward(const kernels::Tensor& dy, InputGrads& g) override {
    if (g.wanted(1)) {
      kernels::Tensor none;
      kernels::Tensor& dw = g.out(1, w);
      g.backend().linear_backward_weights(x, dy, dw, g.wanted(2) ? g.out(2, b) : none);
    } else if (g.wanted(2)) {
      g.backend().bias_backward(dy, g.out(2, b));
    }
    if (g.wanted(0)) g.backend().linear_backward_data(dy, w, g.out(0, x));
  }
  std::vector<kernels::Tensor*> saved() override { return {&x, &w, &b}; }
};

// dbias = sum of dy over all but dimension 1; dx = dy.
struct BiasAddNode final : Node {
  kernels::Tensor b;
  const char* name() const override { return "bias_add"; }
  void backward(const kernels::Tensor& dy, InputGrads& g) override {
    if (g.wanted(1)) g.backend().bias_backward(dy, g.out(1, b));
    g.pass(0, dy);
  }
  std::vector<kernels::Tensor*> saved() override { return {&b}; }
};

}  // namespace

Variable linear(const Variable& x, const Variable& w, const Variable& b) {
  Context& c = op_context("linear", {&x, &w, &b});
  require(x.value().ndim() == 2, "linear", "input", x.value(), "[N, I] (flatten it first)");
  require(w.defined() && w.value().ndim() == 2 && w.shape()[1] == x.shape()[1], "linear", "weight",
          value_or_none(w), [&] { return "[O, " + std::to_string(x.shape()[1]) + "] for input " + x.value().describe(); });
  kernels::Tensor y = c.empty({x.shape()[0], w.shape()[0]}, x.dtype());
  c.backend().linear_forward(x.value(), w.value(), value_or_none(b), y);
  return op_output(c, std::move(y), {&x, &w, &b}, [&] {
    auto node = std::make_shared<LinearNode>();
    node->x = x.value();
    node->w = w.value();
    node->b = value_or_none(b);
    return node;
  });
}

Variable bias_add(const Variable& x, const Variable& b) {
  Context& c = op_context("bias_add", {&x, &b});
  require(x.value().ndim() >= 2, "bias_add", "input", x.value(), "[N, C, ...]");
  require(b.defined() && b.value().ndim() == 1 && b.shape()[0] == x.shape()[1], "bias_add", "bias", value_or_none(b),
          [&] {
            std::string text = "[";  // appended, not "[" + ...: GCC 12 warns falsely (-Wrestrict) on that
            text += std::to_string(x.shape()[1]) + "] for input " + x.value().describe();
            return text;
          });
  kernels::Tensor y = c.empty(x.shape(), x.dtype());
  c.backend().copy(x.value(), y);
  c.backend().bias_add(y, b.value());
  return op_output(c, std::move(y), {&x, &b}, [&] {
    auto node = std::make_shared<BiasAddNode>();
    node->b = b.value();
    return node;
  });
}

}  // namespace ablate::graph::dynamic
