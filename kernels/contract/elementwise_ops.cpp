// The contract of the elementwise ops and reductions (kernels/backend.h): any shape; where
// two tensors meet they have the same number of elements and float dtype. fill and copy also
// take i32 and u8 tensors (labels, masks); copy converts between dtypes.
#include "kernels/backend.h"
#include "kernels/contract/observed_call.h"
#include "kernels/contract/op_check.h"

#include <string>

namespace ablate::kernels {
namespace {

// second of first's float dtype and number of elements.
void checked_pair(const OpCheck& check, const char* first_arg, const Tensor& first, const char* second_arg,
                  const Tensor& second) {
  check.floating(first_arg, first);
  check.like(second_arg, second, first);
  check.numel(second_arg, second, first.numel());
}

}  // namespace

void Backend::fill(Tensor& x, double value) {
  OpCheck(*this, Op::fill).allocated("x", x);
  observed_call(*this, Op::fill, {{&x}, nullptr, {}}, [&] { fill_impl(x, value); });
}

void Backend::copy(const Tensor& src, Tensor& dst) {
  const OpCheck check(*this, Op::copy);
  check.allocated("src", src);
  check.allocated("dst", dst);
  check.numel("dst", dst, src.numel());
  if (src.channel_block() != dst.channel_block()) {  // a layout conversion (channel_blocks.h)
    check.like("dst", dst, src);
    check.shape("dst", dst, src.shape());
    observed_call(*this, Op::copy, {{&dst}, nullptr, {&src}}, [&] { convert_channel_layout_impl(src, dst); });
    return;
  }
  observed_call(*this, Op::copy, {{&dst}, nullptr, {&src}}, [&] { copy_impl(src, dst); });
}

void Backend::scale(Tensor& x, double alpha) {
  OpCheck(*this, Op::scale).floating("x", x);
  observed_call(*this, Op::scale, {{&x}, nullptr, {}}, [&] { scale_impl(x, alpha); });
}

void Backend::axpy(double alpha, const Tensor& x, Tensor& y) {
  checked_pair(OpCheck(*this, Op::axpy), "x", x, "y", y);
  observed_call(*this, Op::axpy, {{&y}, nullptr, {&x}}, [&] { axpy_impl(alpha, x, y); });
}

void Backend::axpby(double alpha, const Tensor& x, double beta, Tensor& y) {
  checked_pair(OpCheck(*this, Op::axpby), "x", x, "y", y);
  observed_call(*this, Op::axpby, {{&y}, nullptr, {&x}}, [&] { axpby_impl(alpha, x, beta, y); });
}

void Backend::add(const Tensor& a, const Tensor& b, Tensor& out) {
  const OpCheck check(*this, Op::add);
  checked_pair(check, "a", a, "b", b);
  checked_pair(check, "a", a, "out", out);
  observed_call(*this, Op::add, {{&out}, nullptr, {&a, &b}}, [&] { add_impl(a, b, out); });
}

void Backend::mul(const Tensor& a, const Tensor& b, Tensor& out) {
  const OpCheck check(*this, Op::mul);
  checked_pair(check, "a", a, "b", b);
  checked_pair(check, "a", a, "out", out);
  observed_call(*this, Op::mul, {{&out}, nullptr, {&a, &b}}, [&] { mul_impl(a, b, out); });
}

void Backend::fused_elementwise(const std::vector<const Tensor*>& inputs, const std::vector<ChainStep>& steps,
                                Tensor& out) {
  const OpCheck check(*this, Op::fused_elementwise);
  if (inputs.empty() || inputs[0] == nullptr) check.fail("inputs is empty, expected the chain's first operand");
  if (steps.empty()) check.fail("steps is empty, expected at least one step");
  const Tensor& first = *inputs[0];
  check.floating("inputs[0]", first);
  check.like_shape("out", out, first, first.shape());
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const ChainStep& s = steps[i];
    const std::string step = "steps[" + std::to_string(i) + "] (" + chain_op_name(s.op) + ")";
    if ((s.op == ChainOp::activation || s.op == ChainOp::activation_grad) && is_gelu(s.activation))
      check.fail(step + " is " + activation_name(s.activation) +
                 ", expected relu, tanh or sigmoid (GELU is not chained: its gradient reads x)");
    const bool needs = s.op != ChainOp::activation && s.op != ChainOp::scale;
    if (!needs) {
      if (s.operand != -1) check.fail(step + " has operand " + std::to_string(s.operand) + ", expected none (-1)");
      continue;
    }
    if (s.operand < 1 || s.operand >= static_cast<int>(inputs.size()) || inputs[static_cast<std::size_t>(s.operand)] == nullptr)
      check.fail(step + " has operand " + std::to_string(s.operand) + ", expected an input index in [1, " +
                 std::to_string(inputs.size()) + ")");
    const Tensor& e = *inputs[static_cast<std::size_t>(s.operand)];
    const std::string arg = "inputs[" + std::to_string(s.operand) + "]";
    if (s.op == ChainOp::bias_add) {
      if (first.ndim() < 2) check.fail(step + " needs inputs[0] of [N, C, ...], got rank " + std::to_string(first.ndim()));
      if (first.channel_block() != 0) check.fail(step + " indexes channels of a plain tensor, got " + first.describe());
      check.like_shape(arg.c_str(), e, first, {first.dim(1)});
    } else {
      check.like_shape(arg.c_str(), e, first, first.shape());
    }
  }
  OpWrites writes{{&out}};
  for (std::size_t i = 0; i < inputs.size() && i < writes.inputs.size(); ++i) writes.inputs[i] = inputs[i];
  observed_call(*this, Op::fused_elementwise, writes, [&] { fused_elementwise_impl(inputs, steps, out); });
}

double Backend::sum(const Tensor& x) {
  OpCheck(*this, Op::sum).floating("x", x);
  return observed_call(*this, Op::sum, {{}, nullptr, {&x}}, [&] { return sum_impl(x); });
}

double Backend::sum_squares(const Tensor& x) {
  OpCheck(*this, Op::sum_squares).floating("x", x);
  return observed_call(*this, Op::sum_squares, {{}, nullptr, {&x}}, [&] { return sum_squares_impl(x); });
}

void Backend::argmax_rows(const Tensor& x, Tensor& out) {
  const OpCheck check(*this, Op::argmax_rows);
  check.rows("x", x);
  check.dtype("out", out, DType::i32);
  check.shape("out", out, {x.dim(0)});
  observed_call(*this, Op::argmax_rows, {{&out}, nullptr, {&x}}, [&] { argmax_rows_impl(x, out); });
}

}  // namespace ablate::kernels
