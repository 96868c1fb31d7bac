// The layout conversion of the tape's blocked layout (context.h): the values of x in another
// channel layout (kernels/tensor.h), as PyTorch's to_dense() of an MKL-DNN tensor and the
// layer-wise strategy's LayoutConvertLayer; the gradient goes back in x's layout.
#include "graph/dynamic/op_record.h"
#include "graph/dynamic/ops.h"

namespace ablate::graph::dynamic {
namespace {

struct ToChannelBlockNode final : Node {
  int from = 0;  // x's block
  const char* name() const override { return "to_channel_block"; }
  void backward(const kernels::Tensor& dy, InputGrads& g) override {
    g.backend().copy(dy, g.out(0, dy.shape(), dy.dtype(), from));  // Backend::copy converts layouts
  }
};

}  // namespace

Variable to_channel_block(const Variable& x, int block) {
  if (x.value().channel_block() == block) return x;
  Context& c = op_context("to_channel_block", {&x});
  kernels::Tensor y = c.empty(x.shape(), x.dtype(), block);
  c.backend().copy(x.value(), y);
  return op_output(c, std::move(y), {&x}, [&] {
    auto node = std::make_shared<ToChannelBlockNode>();
    node->from = x.value().channel_block();
    return node;
  });
}

}  // namespace ablate::graph::dynamic
