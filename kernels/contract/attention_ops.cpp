// The contract of the attention ops (kernels/backend.h; the Vision Transformer's ops):
//   batched_gemm        a [B,M,K] (or [B,K,M]), b [B,K,N] (or [B,N,K]), c [B,M,N], one float dtype
//   softmax_last        x, y, dy, dx of one shape, rank >= 1, last dimension >= 1; scale > 0
//   layer_norm          x, y, dy, dx [R..., D]; gamma, beta, dgamma, dbeta [D] or empty (gamma and
//                       beta both or neither); mean, rstd [R] (R = numel / D); epsilon > 0
//   permute             rank 2 to 6, perm a permutation of [0, rank), y.shape[i] = x.shape[perm[i]],
//                       x and y separate
#include <cmath>
#include <string>

#include "kernels/backend.h"
#include "kernels/contract/observed_call.h"
#include "kernels/contract/op_check.h"
#include "kernels/contract/op_flops.h"

namespace ablate::kernels {
namespace {

std::int64_t last_dim(const Tensor& t) { return t.dim(t.ndim() - 1); }

// A float tensor of rank >= 1 whose last dimension is >= 1: the rows of a softmax or a norm.
void last_axis_rows(const OpCheck& check, const char* arg, const Tensor& t) {
  check.floating(arg, t);
  if (t.ndim() < 1 || last_dim(t) < 1)
    check.fail(std::string(arg) + " is " + t.describe() + ", expected rank >= 1 with a last dimension >= 1");
}

void positive(const OpCheck& check, const char* arg, double v) {
  if (!(v > 0) || !std::isfinite(v))
    check.fail(std::string(arg) + " is " + std::to_string(v) + ", expected a finite value > 0");
}

// The rows R of x [R..., D] as mean and rstd hold them.
Shape row_stats(const Tensor& x) { return {x.numel() / last_dim(x)}; }

void optional_feature(const OpCheck& check, const char* arg, const Tensor& t, const Tensor& x) {
  if (!t.empty()) check.like_shape(arg, t, x, {last_dim(x)});
}

}  // namespace

void Backend::batched_gemm(bool trans_a, bool trans_b, double alpha, const Tensor& a, const Tensor& b, double beta,
                           Tensor& c) {
  const OpCheck check(*this, Op::batched_gemm);
  check.floating("a", a);
  check.like("b", b, a);
  check.like("c", c, a);
  check.ndim("a", a, 3);
  check.ndim("b", b, 3);
  check.ndim("c", c, 3);
  const std::int64_t batch = a.dim(0);
  const std::int64_t m = trans_a ? a.dim(2) : a.dim(1), k = trans_a ? a.dim(1) : a.dim(2);
  const std::int64_t n = trans_b ? b.dim(1) : b.dim(2);
  check.shape("b", b, trans_b ? Shape{batch, n, k} : Shape{batch, k, n});
  check.shape("c", c, {batch, m, n});
  observed_call(*this, Op::batched_gemm, {{&c}, nullptr, {&a, &b}},
                [&] { return 2 * flops::real(c.numel()) * flops::real(k); },
                [&] { batched_gemm_impl(trans_a, trans_b, alpha, a, b, beta, c); });
}

void Backend::softmax_last_forward(const Tensor& x, double scale, Tensor& y) {
  const OpCheck check(*this, Op::softmax_last_forward);
  last_axis_rows(check, "x", x);
  check.like_shape("y", y, x, x.shape());
  positive(check, "scale", scale);
  observed_call(*this, Op::softmax_last_forward, {{&y}, nullptr, {&x}}, [&] { softmax_last_forward_impl(x, scale, y); });
}

void Backend::softmax_last_backward(const Tensor& y, const Tensor& dy, double scale, Tensor& dx) {
  const OpCheck check(*this, Op::softmax_last_backward);
  last_axis_rows(check, "y", y);
  check.like_shape("dy", dy, y, y.shape());
  check.like_shape("dx", dx, y, y.shape());
  positive(check, "scale", scale);
  observed_call(*this, Op::softmax_last_backward, {{&dx}, nullptr, {&y, &dy}},
                [&] { softmax_last_backward_impl(y, dy, scale, dx); });
}

void Backend::layer_norm_forward(const Tensor& x, const Tensor& gamma, const Tensor& beta, double epsilon, Tensor& y,
                                 Tensor& mean, Tensor& rstd) {
  const OpCheck check(*this, Op::layer_norm_forward);
  last_axis_rows(check, "x", x);
  if (gamma.empty() != beta.empty())
    check.fail(std::string("gamma is ") + (gamma.empty() ? "empty" : gamma.describe()) + " and beta " +
               (beta.empty() ? "empty" : beta.describe()) + ", expected both [" + std::to_string(last_dim(x)) +
               "] or both empty");
  optional_feature(check, "gamma", gamma, x);
  optional_feature(check, "beta", beta, x);
  positive(check, "epsilon", epsilon);
  check.like_shape("y", y, x, x.shape());
  check.like_shape("mean", mean, x, row_stats(x));
  check.like_shape("rstd", rstd, x, row_stats(x));
  observed_call(*this, Op::layer_norm_forward, {{&y, &mean, &rstd}, nullptr, {&x, &gamma, &beta}},
                [&] { layer_norm_forward_impl(x, gamma, beta, epsilon, y, mean, rstd); });
}

void Backend::layer_norm_backward(const Tensor& x, const Tensor& dy, const Tensor& gamma, const Tensor& mean,
                                  const Tensor& rstd, Tensor& dx, Tensor& dgamma, Tensor& dbeta) {
  const OpCheck check(*this, Op::layer_norm_backward);
  last_axis_rows(check, "x", x);
  check.like_shape("dy", dy, x, x.shape());
  optional_feature(check, "gamma", gamma, x);
  check.like_shape("mean", mean, x, row_stats(x));
  check.like_shape("rstd", rstd, x, row_stats(x));
  if (!dx.empty()) check.like_shape("dx", dx, x, x.shape());
  optional_feature(check, "dgamma", dgamma, x);
  optional_feature(check, "dbeta", dbeta, x);
  observed_call(*this, Op::layer_norm_backward, {{&dx, &dgamma, &dbeta}, nullptr, {&x, &dy, &gamma, &mean}},
                [&] { layer_norm_backward_impl(x, dy, gamma, mean, rstd, dx, dgamma, dbeta); });
}

void Backend::permute(const Tensor& x, const std::vector<int>& perm, Tensor& y) {
  const OpCheck check(*this, Op::permute);
  check.floating("x", x);
  const int rank = x.ndim();
  if (rank < 2 || rank > 6) check.fail("x is " + x.describe() + ", expected rank 2 to 6");
  std::string given = "[";
  for (std::size_t i = 0; i < perm.size(); ++i) given += (i ? ", " : "") + std::to_string(perm[i]);
  given += "]";
  std::vector<bool> seen(static_cast<std::size_t>(rank), false);
  bool valid = static_cast<int>(perm.size()) == rank;
  for (std::size_t i = 0; valid && i < perm.size(); ++i) {
    valid = perm[i] >= 0 && perm[i] < rank && !seen[static_cast<std::size_t>(perm[i])];
    if (valid) seen[static_cast<std::size_t>(perm[i])] = true;
  }
  if (!valid) check.fail("perm is " + given + ", expected a permutation of [0, " + std::to_string(rank) + ")");
  Shape out(static_cast<std::size_t>(rank));
  for (int i = 0; i < rank; ++i) out[static_cast<std::size_t>(i)] = x.dim(perm[static_cast<std::size_t>(i)]);
  check.like_shape("y", y, x, out);
  if (shares_memory(x, y)) check.fail("y shares memory with x, expected separate tensors");
  observed_call(*this, Op::permute, {{&y}, nullptr, {&x}}, [&] { permute_impl(x, perm, y); });
}

}  // namespace ablate::kernels
