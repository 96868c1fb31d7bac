// Concatenation on the tape along the channel axis, Torch7's nn.JoinTable(2) (Caffe's Concat):
// forward is Backend::concat_forward; backward is Backend::concat_backward, which writes each
// input's channel slice of dy into that input's gradient (an input listed twice receives two
// slices, summed by InputGrads; an input that needs no gradient gets a scratch tensor, as the
// Backend writes every slice).
#include <string>
#include <vector>

#include "graph/dynamic/op_record.h"
#include "graph/dynamic/ops.h"

namespace ablate::graph::dynamic {
namespace {

struct ConcatNode final : Node {
  std::vector<kernels::Shape> shapes;  // of the inputs
  const char* name() const override { return "concat"; }
  void backward(const kernels::Tensor& dy, InputGrads& g) override {
    std::vector<kernels::Tensor> scratch;
    scratch.reserve(shapes.size());
    std::vector<kernels::Tensor*> dxs;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      if (g.wanted(i)) {
        dxs.push_back(&g.out(i, shapes[i], dy.dtype()));
      } else {
        scratch.push_back(g.context().empty(shapes[i], dy.dtype()));
        dxs.push_back(&scratch.back());
      }
    }
    g.backend().concat_backward(dy, dxs);
  }
};

}  // namespace

Variable concat(const std::vector<Variable>& xs) {
  std::vector<const Variable*> inputs;
  for (const Variable& x : xs) inputs.push_back(&x);
  Context& c = op_context("concat", inputs);
  if (xs.size() < 2)
    throw std::invalid_argument("concat: given " + std::to_string(xs.size()) + " inputs; expected two or more");
  kernels::Shape shape = xs[0].shape();
  require(shape.size() >= 2, "concat", "input 0", xs[0].value(), "[N, C, ...]");
  for (std::size_t k = 1; k < xs.size(); ++k) {
    kernels::Shape s = xs[k].shape();
    bool fits = s.size() == shape.size() && xs[k].dtype() == xs[0].dtype();
    for (std::size_t d = 0; fits && d < s.size(); ++d) fits = d == 1 || s[d] == shape[d];
    if (!fits)
      throw std::invalid_argument("concat: input " + std::to_string(k) + " " + xs[k].value().describe() +
                                  " does not fit input 0 " + xs[0].value().describe() +
                                  " (joined along axis 1; every other dimension and the dtype must agree)");
    shape[1] += s[1];
  }
  kernels::Tensor y = c.empty(shape, xs[0].dtype());
  std::vector<const kernels::Tensor*> values;
  for (const Variable& x : xs) values.push_back(&x.value());
  c.backend().concat_forward(values, y);
  return op_output(c, std::move(y), inputs, [&] {
    auto node = std::make_shared<ConcatNode>();
    for (const Variable& x : xs) node->shapes.push_back(x.shape());
    return node;
  });
}

}  // namespace ablate::graph::dynamic
