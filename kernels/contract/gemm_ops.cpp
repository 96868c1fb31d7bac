// The contract of GEMM and the fully connected layer (kernels/backend.h):
//   gemm:   a [M,K] (or [K,M] transposed), b [K,N] (or [N,K]), c [M,N], one float dtype
//   linear: x [N,I], w [O,I], bias [O] or empty, y [N,O]; dx [N,I]; dw [O,I], dbias [O] or empty
#include "kernels/backend.h"
#include "kernels/contract/observed_call.h"
#include "kernels/contract/op_check.h"
#include "kernels/contract/op_flops.h"

namespace ablate::kernels {

void Backend::gemm(bool trans_a, bool trans_b, double alpha, const Tensor& a, const Tensor& b, double beta, Tensor& c) {
  const OpCheck check(*this, Op::gemm);
  check.floating("a", a);
  check.like("b", b, a);
  check.like("c", c, a);
  check.ndim("a", a, 2);
  check.ndim("b", b, 2);
  check.ndim("c", c, 2);
  const std::int64_t m = trans_a ? a.dim(1) : a.dim(0), k = trans_a ? a.dim(0) : a.dim(1);
  const std::int64_t n = trans_b ? b.dim(0) : b.dim(1);
  check.shape("b", b, trans_b ? Shape{n, k} : Shape{k, n});
  check.shape("c", c, {m, n});
  observed_call(*this, Op::gemm, {{&c}, nullptr, {&a, &b}}, [&] { return flops::gemm(trans_a, a, c); },
                [&] { gemm_impl(trans_a, trans_b, alpha, a, b, beta, c); });
}

void Backend::linear_forward(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y) {
  const OpCheck check(*this, Op::linear_forward);
  check.floating("x", x);
  check.like("w", w, x);
  check.like("y", y, x);
  check.ndim("x", x, 2);
  check.ndim("w", w, 2);
  const std::int64_t n = x.dim(0), in = x.dim(1), out = w.dim(0);
  check.shape("w", w, {out, in});
  check.shape("y", y, {n, out});
  if (!bias.empty()) check.like_shape("bias", bias, x, {out});
  observed_call(*this, Op::linear_forward, {{&y}, nullptr, {&x, &w, &bias}}, [&] { return flops::linear(w, n); },
                [&] { linear_forward_impl(x, w, bias, y); });
}

void Backend::linear_backward_data(const Tensor& dy, const Tensor& w, Tensor& dx) {
  const OpCheck check(*this, Op::linear_backward_data);
  check.floating("dy", dy);
  check.like("w", w, dy);
  check.like("dx", dx, dy);
  check.ndim("dy", dy, 2);
  check.ndim("w", w, 2);
  const std::int64_t n = dy.dim(0), out = dy.dim(1), in = w.dim(1);
  check.shape("w", w, {out, in});
  check.shape("dx", dx, {n, in});
  observed_call(*this, Op::linear_backward_data, {{&dx}, nullptr, {&dy, &w}}, [&] { return flops::linear(w, n); },
                [&] { linear_backward_data_impl(dy, w, dx); });
}

void Backend::linear_backward_weights(const Tensor& x, const Tensor& dy, Tensor& dw, Tensor& dbias) {
  const std::int64_t n = OpCheck(*this, Op::linear_backward_weights).weight_gradient(x, dy, "dw", dw, dbias);
  observed_call(*this, Op::linear_backward_weights, {{&dw, &dbias}, nullptr, {&x, &dy}}, [&] { return flops::linear(dw, n); },
                [&] { linear_backward_weights_impl(x, dy, dw, dbias); });
}

}  // namespace ablate::kernels
