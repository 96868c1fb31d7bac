// The contract of the elementwise ops and reductions (kernels/backend.h): any shape; where
// two tensors meet they have the same number of elements and float dtype. fill and copy also
// take i32 and u8 tensors (labels, masks); copy converts between dtypes.
#include "kernels/backend.h"
#include "kernels/contract/observed_call.h"
#include "kernels/contract/op_check.h"

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
  observed_call(*this, Op::fill, [&] { fill_impl(x, value); });
}

void Backend::copy(const Tensor& src, Tensor& dst) {
  const OpCheck check(*this, Op::copy);
  check.allocated("src", src);
  check.allocated("dst", dst);
  check.numel("dst", dst, src.numel());
  observed_call(*this, Op::copy, [&] { copy_impl(src, dst); });
}

void Backend::scale(Tensor& x, double alpha) {
  OpCheck(*this, Op::scale).floating("x", x);
  observed_call(*this, Op::scale, [&] { scale_impl(x, alpha); });
}

void Backend::axpy(double alpha, const Tensor& x, Tensor& y) {
  checked_pair(OpCheck(*this, Op::axpy), "x", x, "y", y);
  observed_call(*this, Op::axpy, [&] { axpy_impl(alpha, x, y); });
}

void Backend::axpby(double alpha, const Tensor& x, double beta, Tensor& y) {
  checked_pair(OpCheck(*this, Op::axpby), "x", x, "y", y);
  observed_call(*this, Op::axpby, [&] { axpby_impl(alpha, x, beta, y); });
}

void Backend::add(const Tensor& a, const Tensor& b, Tensor& out) {
  const OpCheck check(*this, Op::add);
  checked_pair(check, "a", a, "b", b);
  checked_pair(check, "a", a, "out", out);
  observed_call(*this, Op::add, [&] { add_impl(a, b, out); });
}

void Backend::mul(const Tensor& a, const Tensor& b, Tensor& out) {
  const OpCheck check(*this, Op::mul);
  checked_pair(check, "a", a, "b", b);
  checked_pair(check, "a", a, "out", out);
  observed_call(*this, Op::mul, [&] { mul_impl(a, b, out); });
}

double Backend::sum(const Tensor& x) {
  OpCheck(*this, Op::sum).floating("x", x);
  return observed_call(*this, Op::sum, [&] { return sum_impl(x); });
}

double Backend::sum_squares(const Tensor& x) {
  OpCheck(*this, Op::sum_squares).floating("x", x);
  return observed_call(*this, Op::sum_squares, [&] { return sum_squares_impl(x); });
}

void Backend::argmax_rows(const Tensor& x, Tensor& out) {
  const OpCheck check(*this, Op::argmax_rows);
  check.rows("x", x);
  check.dtype("out", out, DType::i32);
  check.shape("out", out, {x.dim(0)});
  observed_call(*this, Op::argmax_rows, [&] { argmax_rows_impl(x, out); });
}

}  // namespace ablate::kernels
