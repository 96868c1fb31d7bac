// Output types of the attention ops (see op_shape_checker.h): tokens [N, T, D], per-head
// batches [B, T, dh], fused attention's q, k, v [B, T, d].
#include "graph/static/op_shape_checker.h"

namespace ablate::graph::static_graph {

using kernels::DType;
using kernels::Shape;

// The attention ops (op_kind.h): reshape, permute, batched_matmul, softmax_last and layer_norm
// with their gradients; tokens [N, T, D], per-head batches [B, T, dh].
std::vector<TensorType> attention_outputs(const Checker& c, const Node& n) {
  const Attrs& a = n.attrs;
  switch (n.op) {
    case OpKind::reshape:
      c.arity(1, 1);
      if (kernels::shape_numel(a.shape) != kernels::shape_numel(c.shape(0)))
        c.fail(c.desc(0) + " cannot be viewed as " + kernels::shape_string(a.shape) + " (another element count)");
      return {c.like(0, a.shape)};
    case OpKind::permute: {
      c.arity(1, 1);
      const Shape& x = c.shape(0);
      Shape out;
      std::vector<bool> seen(x.size(), false);
      for (int p : a.perm) {
        if (p < 0 || static_cast<std::size_t>(p) >= x.size() || seen[static_cast<std::size_t>(p)]) break;
        seen[static_cast<std::size_t>(p)] = true;
        out.push_back(x[static_cast<std::size_t>(p)]);
      }
      if (out.size() != x.size() || a.perm.size() != x.size())
        c.fail("attrs.perm is not a permutation of the axes of " + c.desc(0));
      return {c.like(0, out)};
    }
    case OpKind::batched_matmul: {
      c.arity(2, 2);
      c.dims(0, 3, "[B, rows, cols]");
      c.dims(1, 3, "[B, rows, cols]");
      const Shape &sa = c.shape(0), &sb = c.shape(1);
      const std::int64_t m = a.trans_a ? sa[2] : sa[1], k = a.trans_a ? sa[1] : sa[2];
      const std::int64_t kb = a.trans_b ? sb[2] : sb[1], nn = a.trans_b ? sb[1] : sb[2];
      if (sa[0] != sb[0] || k != kb)
        c.fail(c.desc(0) + (a.trans_a ? " (transposed)" : "") + " and " + c.desc(1) + (a.trans_b ? " (transposed)" : "") +
               " do not share their batch and inner dimension");
      return {c.like(0, {sa[0], m, nn})};
    }
    case OpKind::softmax_last:
      c.arity(1, 1);
      if (c.shape(0).empty()) c.fail(c.desc(0) + " has no last axis");
      return {c.like(0, c.shape(0))};
    case OpKind::softmax_last_grad:
      c.arity(2, 2);
      c.same(0, 1);
      return {c.like(0, c.shape(0))};
    case OpKind::layer_norm: {  // (x, weight, bias) -> y, mean, rstd
      c.arity(3, 3);
      if (c.shape(0).size() < 2) c.fail(c.desc(0) + " is not [N, ..., D]");
      const std::int64_t d = c.shape(0).back();
      c.exactly(1, {d}, "one weight per feature");
      c.exactly(2, {d}, "one bias per feature");
      const Shape rows{kernels::shape_numel(c.shape(0)) / d};
      return {c.like(0, c.shape(0)), c.like(0, rows), c.like(0, rows)};
    }
    default: {  // layer_norm_grad (x, dy, mean, rstd, weight) -> dx, dweight, dbias
      c.arity(5, 5);
      c.same(0, 1);
      const std::int64_t d = c.shape(0).back();
      const Shape rows{kernels::shape_numel(c.shape(0)) / d};
      c.exactly(2, rows, "one mean per row");
      c.exactly(3, rows, "one rstd per row");
      c.exactly(4, {d}, "one weight per feature");
      return {c.like(0, c.shape(0)), c.like(0, {d}), c.like(0, {d})};
    }
  }
}

// fused_attention (q, k, v) -> o, lse and its gradient (q, k, v, o, lse, dout) -> dq, dk, dv:
// q, k, v, o, dout [B, T, d] of one shape, lse [B, T].
std::vector<TensorType> fused_attention_outputs(const Checker& c, const Node& n) {
  const bool grad = n.op == OpKind::fused_attention_grad;
  c.arity(grad ? 6 : 3, grad ? 6 : 3);
  c.dims(0, 3, "[B, T, d]");
  c.same(0, 1);
  c.same(0, 2);
  const Shape& q = c.shape(0);
  if (!grad) return {c.like(0, q), c.like(0, {q[0], q[1]})};
  c.same(0, 3);
  c.exactly(4, {q[0], q[1]}, "one log-sum-exp per query row");
  c.same(0, 5);
  return {c.like(0, q), c.like(0, q), c.like(0, q)};
}

}  // namespace ablate::graph::static_graph
