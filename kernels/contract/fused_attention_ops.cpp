// The contract of fused attention (kernels/backend.h):
//   forward   q, k, v [B, T, d] of one float dtype (B, T, d >= 1); o [B, T, d]; lse [B, T];
//             scale finite and > 0; block >= 1; o and lse separate from q, k and v
//   backward  q, k, v, o, dout, dq, dk, dv [B, T, d]; lse [B, T]; dq, dk and dv separate from
//             every input and from each other
// FLOPs for an observer: forward 4 B T^2 d (q k^T and p v); backward 10 B T^2 d (the scores
// recomputed, then dv, dp, dq and dk).
#include <cmath>
#include <string>

#include "kernels/backend.h"
#include "kernels/contract/observed_call.h"
#include "kernels/contract/op_check.h"
#include "kernels/contract/op_flops.h"

namespace ablate::kernels {
namespace {

// q [B, T, d] with every dimension >= 1; k and v of its shape and dtype.
void qkv(const OpCheck& check, const Tensor& q, const Tensor& k, const Tensor& v) {
  check.floating("q", q);
  check.ndim("q", q, 3);
  if (q.numel() == 0) check.fail("q is " + q.describe() + ", expected [B, T, d] with every dimension >= 1");
  check.like_shape("k", k, q, q.shape());
  check.like_shape("v", v, q, q.shape());
}

void settings(const OpCheck& check, double scale, std::int64_t block) {
  if (!(scale > 0) || !std::isfinite(scale))
    check.fail("scale is " + std::to_string(scale) + ", expected a finite value > 0");
  if (block < 1) check.fail("block is " + std::to_string(block) + ", expected >= 1 keys per block");
}

void separate(const OpCheck& check, const char* arg, const Tensor& out, const std::vector<std::pair<const char*, const Tensor*>>& others) {
  for (const auto& [name, t] : others)
    if (!t->empty() && shares_memory(out, *t))
      check.fail(std::string(arg) + " shares memory with " + name + ", expected separate tensors");
}

double attention_flops(const Tensor& q, double per_product) {
  return per_product * flops::real(q.dim(0)) * flops::real(q.dim(1)) * flops::real(q.dim(1)) * flops::real(q.dim(2));
}

}  // namespace

void Backend::fused_attention_forward(const Tensor& q, const Tensor& k, const Tensor& v, double scale,
                                      std::int64_t block, Tensor& o, Tensor& lse) {
  const OpCheck check(*this, Op::fused_attention_forward);
  qkv(check, q, k, v);
  settings(check, scale, block);
  check.like_shape("o", o, q, q.shape());
  check.like_shape("lse", lse, q, {q.dim(0), q.dim(1)});
  const std::vector<std::pair<const char*, const Tensor*>> inputs{{"q", &q}, {"k", &k}, {"v", &v}};
  separate(check, "o", o, inputs);
  separate(check, "lse", lse, inputs);
  separate(check, "lse", lse, {{"o", &o}});
  observed_call(*this, Op::fused_attention_forward, {{&o, &lse}, nullptr, {&q, &k, &v}},
                [&] { return attention_flops(q, 4); },
                [&] { fused_attention_forward_impl(q, k, v, scale, block, o, lse); });
}

void Backend::fused_attention_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& o,
                                       const Tensor& lse, const Tensor& dout, double scale, std::int64_t block,
                                       Tensor& dq, Tensor& dk, Tensor& dv) {
  const OpCheck check(*this, Op::fused_attention_backward);
  qkv(check, q, k, v);
  check.like_shape("o", o, q, q.shape());
  check.like_shape("lse", lse, q, {q.dim(0), q.dim(1)});
  check.like_shape("dout", dout, q, q.shape());
  settings(check, scale, block);
  check.like_shape("dq", dq, q, q.shape());
  check.like_shape("dk", dk, q, q.shape());
  check.like_shape("dv", dv, q, q.shape());
  const std::vector<std::pair<const char*, const Tensor*>> inputs{{"q", &q},     {"k", &k},       {"v", &v},
                                                                  {"o", &o},     {"lse", &lse},   {"dout", &dout}};
  separate(check, "dq", dq, inputs);
  separate(check, "dk", dk, inputs);
  separate(check, "dv", dv, inputs);
  separate(check, "dk", dk, {{"dq", &dq}});
  separate(check, "dv", dv, {{"dq", &dq}, {"dk", &dk}});
  observed_call(*this, Op::fused_attention_backward, {{&dq, &dk, &dv}, nullptr, {&q, &k, &v, &dout}},
                [&] { return attention_flops(q, 10); },
                [&] { fused_attention_backward_impl(q, k, v, o, lse, dout, scale, block, dq, dk, dv); });
}

}  // namespace ablate::kernels
