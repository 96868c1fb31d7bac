// Output types of every op kind (see op_shapes.h). Shapes: images [N, C, H, W], matrices
// [N, F], weights as the Backend takes them (conv [K, C, KH, KW], conv_map [T, KH, KW] with a
// table i32 [T, 2], linear [O, I]), biases [C], losses host f64 [1].
#include "graph/static/op_shapes.h"

#include "graph/static/op_shape_checker.h"

namespace ablate::graph::static_graph {
namespace {

using kernels::DType;
using kernels::Shape;

TensorType host_scalar() { return {{1}, DType::f64, true}; }
TensorType workspace() { return {{}, DType::u8, false, true}; }

// Output [N, K, OH, OW] of a convolution of x [N, C, H, W] with kernels kh x kw.
Shape conv_output(const Checker& c, const Attrs& a, std::int64_t k, std::int64_t kh, std::int64_t kw) {
  const Shape& x = c.shape(0);
  const int oh = kernels::conv2d_out_size(static_cast<int>(x[2]), static_cast<int>(kh), a.conv.stride_h, a.conv.pad_top, a.conv.pad_bottom);
  const int ow = kernels::conv2d_out_size(static_cast<int>(x[3]), static_cast<int>(kw), a.conv.stride_w, a.conv.pad_left, a.conv.pad_right);
  if (oh <= 0 || ow <= 0) c.fail(c.desc(0) + " is smaller than the kernel " + std::to_string(kh) + "x" + std::to_string(kw));
  return {x[0], k, oh, ow};
}

std::vector<TensorType> convolution(const Checker& c, const Node& n) {
  const bool map = n.op == OpKind::conv2d_map;
  c.arity(map ? 3 : 2, map ? 4 : 3);
  c.dims(0, 4, "[N, C, H, W]");
  const Shape& w = c.shape(1);
  std::int64_t k = 0;
  if (map) {
    c.dims(1, 3, "[T, KH, KW]");
    c.dims(2, 2, "[T, 2]");
    c.dtype(2, DType::i32);
    if (c.shape(2) != Shape{w[0], 2}) c.exactly(2, {w[0], 2}, "one (input, output) pair per kernel");
    k = n.attrs.outputs;
    if (k <= 0) c.fail("conv2d_map needs attrs.outputs > 0");
  } else {
    c.dims(1, 4, "[K, C, KH, KW]");
    if (w[1] != c.shape(0)[1]) c.fail(c.desc(0) + " has " + std::to_string(c.shape(0)[1]) + " channels; " + c.desc(1) + " expects " + std::to_string(w[1]));
    k = w[0];
  }
  const std::size_t bias = map ? 3 : 2;
  if (n.inputs.size() > bias) c.exactly(bias, {k}, "one bias per output plane");
  const Shape out = conv_output(c, n.attrs, k, w[w.size() - 2], w[w.size() - 1]);
  if (n.op != OpKind::conv2d_max_pool) return {c.like(0, out)};
  // The pooling over the convolution's output: its geometry was resolved for that output.
  const kernels::Pool2dParams& p = n.attrs.pool;
  if (p.out_h <= 0 || p.out_w <= 0) c.fail("needs the pooling geometry (attrs.pool.out_h, out_w)");
  return {c.like(0, {out[0], out[1], p.out_h, p.out_w}), workspace()};
}

std::vector<TensorType> linear(const Checker& c, const Node& n) {
  c.arity(2, 3);
  const Shape& x = c.shape(0);
  if (x.size() < 2) c.fail(c.desc(0) + " is not [N, ...]");
  c.dims(1, 2, "[O, I]");
  const std::int64_t features = kernels::shape_numel(x) / x[0];
  if (c.shape(1)[1] != features)
    c.fail(c.desc(0) + " has " + std::to_string(features) + " features per sample; " + c.desc(1) + " expects " +
           std::to_string(c.shape(1)[1]));
  if (n.inputs.size() > 2) c.exactly(2, {c.shape(1)[0]}, "one bias per output");
  return {c.like(0, {x[0], c.shape(1)[0]})};
}

// (x, dy[, table or workspace]) -> dw[, db]; linear_grad_weight_update (x, dy, w, slots...) -> nothing, w of
// the weight's shape (attrs.shape) and each slot w's.
std::vector<TensorType> weight_gradient(const Checker& c, const Node& n) {
  const bool folded = n.op == OpKind::linear_grad_weight_update;
  // conv2d_map's third input is its table, conv2d_max_pool's the pooling's workspace.
  const bool third = n.op == OpKind::conv2d_map_grad_filter || n.op == OpKind::conv2d_max_pool_grad_filter;
  if (folded) c.arity(4, 5);
  else c.arity(third ? 3 : 2, third ? 3 : 2);
  if (n.attrs.shape.empty()) c.fail("needs attrs.shape, the weight's shape");
  if (c.shape(0)[0] != c.shape(1)[0]) c.fail(c.desc(0) + " and " + c.desc(1) + " have different batch sizes");
  if (folded) {
    c.exactly(2, n.attrs.shape, "the weight");
    for (std::size_t k = 3; k < n.inputs.size(); ++k) c.same(2, k);
    return {};
  }
  std::vector<TensorType> out{c.like(1, n.attrs.shape)};
  if (n.attrs.bias) out.push_back(c.like(1, {c.shape(1)[1]}));
  return out;
}

std::vector<TensorType> fused(const Checker& c, const Node& n) {
  if (n.inputs.empty() || n.attrs.steps.empty()) c.fail("a fused node needs an input and at least one step");
  for (const FusedStep& s : n.attrs.steps) {
    if (!is_fusable_step(s.op)) c.fail(std::string("step ") + op_name(s.op) + " is not elementwise");
    const bool needs_extra = s.op != OpKind::activation && s.op != OpKind::scale;
    if (needs_extra != (s.extra >= 0) || s.extra >= static_cast<int>(n.inputs.size()))
      c.fail(std::string("step ") + op_name(s.op) + " has operand index " + std::to_string(s.extra));
    if (s.op == OpKind::bias_add)
      c.exactly(static_cast<std::size_t>(s.extra), {c.shape(0)[1]}, "one bias per channel");
    else if (s.extra >= 0)
      c.same(0, static_cast<std::size_t>(s.extra));
  }
  return {c.like(0, c.shape(0))};
}

// c [M, N] = alpha op(a) op(b) + beta c0; op(a) [M, K], op(b) [K, N].
std::vector<TensorType> gemm(const Checker& c, const Node& n) {
  const Attrs& a = n.attrs;
  c.arity(a.beta != 0 ? 3 : 2, a.beta != 0 ? 3 : 2);
  c.dims(0, 2, "[rows, cols]");
  c.dims(1, 2, "[rows, cols]");
  const Shape &sa = c.shape(0), &sb = c.shape(1);
  const std::int64_t m = a.trans_a ? sa[1] : sa[0], k = a.trans_a ? sa[0] : sa[1];
  const std::int64_t kb = a.trans_b ? sb[1] : sb[0], nn = a.trans_b ? sb[0] : sb[1];
  if (k != kb)
    c.fail(c.desc(0) + (a.trans_a ? " (transposed)" : "") + " and " + c.desc(1) + (a.trans_b ? " (transposed)" : "") +
           " do not share their inner dimension (" + std::to_string(k) + " vs " + std::to_string(kb) + ")");
  if (a.beta != 0) c.exactly(2, {m, nn}, "c0 of the product's shape");
  return {c.like(0, {m, nn})};
}

// The batch normalisation ops (op_kind.h): x [N, C] or [N, C, H, W], per-channel tensors [C].
std::int64_t batch_norm_channels(const Checker& c, std::size_t x) {
  if (c.shape(x).size() != 2 && c.shape(x).size() != 4) c.fail(c.desc(x) + " is not [N, C] or [N, C, H, W]");
  return c.shape(x)[1];
}

void per_channel(const Checker& c, std::size_t first, std::size_t last, std::int64_t channels) {
  for (std::size_t k = first; k < last; ++k) c.exactly(k, {channels}, "one value per channel");
}

// The running statistics' variables from input `first`: torch style 2 of [C], caffe 3 (the
// last the scale factor [1]).
void running_statistics(const Checker& c, const Node& n, std::size_t first, std::int64_t channels) {
  const bool caffe = n.attrs.batch_norm.style == models::MomentumStyle::caffe;
  per_channel(c, first, first + 2, channels);
  if (caffe) c.exactly(first + 2, {1}, "Caffe's scale factor");
}

std::vector<TensorType> batch_norm(const Checker& c, const Node& n) {
  const std::size_t state = n.attrs.batch_norm.style == models::MomentumStyle::caffe ? 3 : 2;
  switch (n.op) {
    case OpKind::batch_norm: {  // (x[, weight, bias]) -> y, mean, var
      if (n.inputs.size() != 1) c.arity(3, 3);
      const std::int64_t ch = batch_norm_channels(c, 0);
      per_channel(c, 1, n.inputs.size(), ch);
      return {c.like(0, c.shape(0)), c.like(0, {ch}), c.like(0, {ch})};
    }
    case OpKind::batch_norm_grad: {  // (x, dy, mean, var[, weight]) -> dx[, dweight, dbias]
      c.arity(4, 5);
      const std::int64_t ch = batch_norm_channels(c, 0);
      c.same(0, 1);
      per_channel(c, 2, n.inputs.size(), ch);
      if (n.inputs.size() == 4) return {c.like(0, c.shape(0))};
      return {c.like(0, c.shape(0)), c.like(0, {ch}), c.like(0, {ch})};
    }
    case OpKind::batch_norm_inference: {  // (x, mean, var[, weight, bias]) -> y
      if (n.inputs.size() != 3) c.arity(5, 5);
      per_channel(c, 1, n.inputs.size(), batch_norm_channels(c, 0));
      return {c.like(0, c.shape(0))};
    }
    case OpKind::batch_norm_statistics: {  // (running statistics) -> mean, var
      c.arity(state, state);
      const std::int64_t ch = c.shape(0).empty() ? 0 : c.shape(0)[0];
      running_statistics(c, n, 0, ch);
      return {c.like(0, {ch}), c.like(0, {ch})};
    }
    default: {  // batch_norm_update (mean, var, running statistics): writes the variables
      c.arity(2 + state, 2 + state);
      if (n.attrs.shape.size() < 2) c.fail("needs attrs.shape, the layer input's shape");
      const std::int64_t ch = n.attrs.shape[1];
      per_channel(c, 0, 2, ch);
      running_statistics(c, n, 2, ch);
      return {};
    }
  }
}

// (x0, x1, ...) [N, Ck, ...], equal but in axis 1 -> [N, C0 + C1 + ..., ...]
std::vector<TensorType> concat(const Checker& c, const Node& n) {
  if (n.inputs.size() < 2) c.arity(2, 2);
  Shape out = c.shape(0);
  if (out.size() < 2) c.fail(c.desc(0) + " is not [N, C, ...]");
  for (std::size_t k = 1; k < n.inputs.size(); ++k) {
    c.dtype(k, c.in(0).dtype);
    Shape s = c.shape(k);
    if (s.size() < 2) c.fail(c.desc(k) + " is not [N, C, ...]");
    const std::int64_t channels = s[1];
    s[1] = out[1];
    if (s != out || c.in(k).host || c.in(k).opaque)
      c.fail(c.desc(k) + " does not fit " + c.desc(0) + " (concat joins along axis 1; every other dimension must agree)");
    out[1] += channels;
  }
  return {c.like(0, out)};
}

// (dy) -> one slice per entry of attrs.sizes, [N, sizes[k], ...]
std::vector<TensorType> concat_grad(const Checker& c, const Node& n) {
  c.arity(1, 1);
  const Shape& dy = c.shape(0);
  std::int64_t total = 0;
  for (std::int64_t k : n.attrs.sizes) total += k > 0 ? k : 0;
  if (dy.size() < 2 || n.attrs.sizes.size() < 2 || total != dy[1])
    c.fail(c.desc(0) + " is not split by attrs.sizes into two or more positive channel counts");
  std::vector<TensorType> out;
  for (std::int64_t k : n.attrs.sizes) {
    if (k <= 0) c.fail("attrs.sizes has a channel count " + std::to_string(k));
    Shape s = dy;
    s[1] = k;
    out.push_back(c.like(0, s));
  }
  return out;
}

std::vector<TensorType> update(const Checker& c, const Node& n) {
  const std::size_t count = n.op == OpKind::apply_adam ? 4 : 3;
  c.arity(count, count);
  for (std::size_t k = 1; k < count; ++k) c.same(0, k);
  return {};
}

}  // namespace

std::vector<TensorType> infer_outputs(const Graph& g, const Node& n) {
  Checker c(g, n);
  const Attrs& a = n.attrs;
  switch (n.op) {
    case OpKind::placeholder:
    case OpKind::variable:
    case OpKind::dropout_mask:
      c.arity(0, 0);
      if (a.shape.empty()) c.fail("a source needs attrs.shape");
      return {{a.shape, a.dtype}};
    case OpKind::fill:
      c.arity(0, 0);
      if (a.shape.empty()) c.fail("fill needs attrs.shape");
      return {{a.shape, a.dtype}};
    case OpKind::broadcast:
      c.arity(1, 1);
      c.host(0);
      if (a.shape.empty()) c.fail("broadcast needs attrs.shape");
      return {{a.shape, a.dtype}};
    case OpKind::gemm: return gemm(c, n);
    case OpKind::reshape:
    case OpKind::permute:
    case OpKind::batched_matmul:
    case OpKind::softmax_last:
    case OpKind::softmax_last_grad:
    case OpKind::layer_norm:
    case OpKind::layer_norm_grad: return attention_outputs(c, n);
    case OpKind::fused_attention:
    case OpKind::fused_attention_grad: return fused_attention_outputs(c, n);
    case OpKind::axpby:
      c.arity(2, 2);
      c.same(0, 1);
      return {c.like(0, c.shape(0))};
    case OpKind::copy:
      c.arity(1, 1);
      return {c.like(0, c.shape(0))};
    case OpKind::softmax:
      c.arity(1, 1);
      c.dims(0, 2, "[N, K]");
      return {c.like(0, c.shape(0))};
    case OpKind::sum:
    case OpKind::sum_squares:
      c.arity(1, 1);
      return {host_scalar()};
    case OpKind::constant:
      c.arity(0, 0);
      if (a.value.empty()) c.fail("a constant needs attrs.value");
      return {{a.value.shape(), a.value.dtype()}};
    case OpKind::conv2d:
    case OpKind::conv2d_map:
    case OpKind::conv2d_max_pool: return convolution(c, n);
    case OpKind::linear: return linear(c, n);
    case OpKind::bias_add:
      c.arity(2, 2);
      if (c.shape(0).size() < 2) c.fail(c.desc(0) + " is not [N, C, ...]");
      c.exactly(1, {c.shape(0)[1]}, "one bias per channel");
      return {c.like(0, c.shape(0))};
    case OpKind::pool2d: {
      c.arity(1, 1);
      c.dims(0, 4, "[N, C, H, W]");
      if (a.pool.out_h <= 0 || a.pool.out_w <= 0) c.fail("needs the pooling geometry (attrs.pool.out_h, out_w)");
      const Shape& x = c.shape(0);
      return {c.like(0, {x[0], x[1], a.pool.out_h, a.pool.out_w}), workspace()};
    }
    case OpKind::lrn:
      c.arity(1, 1);
      c.dims(0, 4, "[N, C, H, W]");
      return {c.like(0, c.shape(0)), workspace()};
    case OpKind::activation:
    case OpKind::scale:
      c.arity(1, 1);
      return {c.like(0, c.shape(0))};
    case OpKind::mul:
    case OpKind::add:
      c.arity(2, 2);
      c.same(0, 1);
      return {c.like(0, c.shape(0))};
    case OpKind::concat: return concat(c, n);
    case OpKind::concat_grad: return concat_grad(c, n);
    case OpKind::add_n:
      if (n.inputs.size() < 2) c.arity(2, 2);
      for (std::size_t k = 1; k < n.inputs.size(); ++k) {
        c.same(0, k);
        if (c.in(k).host != c.in(0).host) c.fail(c.desc(k) + " and " + c.desc(0) + " are not both host scalars or both tensors");
      }
      return {c.like(0, c.shape(0))};
    case OpKind::softmax_xent:
    case OpKind::nll:
      c.arity(2, 2);
      c.dims(0, 2, "[N, K]");
      c.dtype(1, DType::i32);
      c.exactly(1, {c.shape(0)[0]}, "one label per row");
      if (n.op == OpKind::nll) return {host_scalar()};
      return {host_scalar(), c.like(0, c.shape(0))};
    case OpKind::log_softmax:
      c.arity(1, 1);
      c.dims(0, 2, "[N, K]");
      return {c.like(0, c.shape(0))};
    case OpKind::argmax:
      c.arity(1, 1);
      c.dims(0, 2, "[N, K]");
      return {{{c.shape(0)[0]}, DType::i32}};
    case OpKind::conv2d_grad_input:
    case OpKind::conv2d_map_grad_input:
    case OpKind::linear_grad_input:
      c.arity(n.op == OpKind::conv2d_map_grad_input ? 3 : 2, n.op == OpKind::conv2d_map_grad_input ? 3 : 2);
      if (a.shape.empty() || a.shape[0] != c.shape(0)[0]) c.fail("attrs.shape " + kernels::shape_string(a.shape) + " does not have the batch of " + c.desc(0));
      return {c.like(0, a.shape)};
    case OpKind::conv2d_grad_filter:
    case OpKind::conv2d_map_grad_filter:
    case OpKind::conv2d_max_pool_grad_filter:
    case OpKind::linear_grad_weight:
    case OpKind::linear_grad_weight_update: return weight_gradient(c, n);
    case OpKind::bias_grad:
      c.arity(1, 1);
      if (c.shape(0).size() < 2) c.fail(c.desc(0) + " is not [N, C, ...]");
      return {c.like(0, {c.shape(0)[1]})};
    case OpKind::pool2d_grad:
    case OpKind::lrn_grad:
      c.arity(4, 4);
      c.same(1, 2);
      return {c.like(0, c.shape(0))};
    case OpKind::activation_grad:
    case OpKind::log_softmax_grad:
      c.arity(2, 2);
      c.same(0, 1);
      return {c.like(0, c.shape(0))};
    case OpKind::softmax_xent_grad:
      c.arity(3, 3);
      c.dims(0, 2, "[N, K]");
      c.exactly(1, {c.shape(0)[0]}, "one label per row");
      c.host(2);
      return {c.like(0, c.shape(0))};
    case OpKind::nll_grad:
      c.arity(2, 2);
      c.dtype(0, DType::i32);
      c.host(1);
      if (a.shape.size() != 2 || a.shape[0] != c.shape(0)[0]) c.fail("attrs.shape " + kernels::shape_string(a.shape) + " is not [N, K] for " + c.desc(0));
      return {{a.shape, a.dtype}};
    case OpKind::scalar_scale:
      c.arity(1, 1);
      c.host(0);
      return {host_scalar()};
    case OpKind::check_numerics:
      c.arity(1, 1);
      c.host(0);
      return {};
    case OpKind::apply_caffe_sgd:
    case OpKind::apply_torch_sgd:
    case OpKind::apply_adam: return update(c, n);
    case OpKind::fused_elementwise: return fused(c, n);
    case OpKind::allreduce_mean: {  // (gradients of one bucket) -> their means, alike
      if (n.inputs.empty()) c.fail("an all-reduce needs at least one input");
      std::vector<TensorType> out;
      for (std::size_t k = 0; k < n.inputs.size(); ++k) {
        c.dtype(k, c.in(0).dtype);
        if (c.in(k).host || c.in(k).opaque) c.fail(c.desc(k) + " is not a device tensor");
        out.push_back(c.like(k, c.shape(k)));
      }
      return out;
    }
    case OpKind::batch_norm:
    case OpKind::batch_norm_grad:
    case OpKind::batch_norm_inference:
    case OpKind::batch_norm_statistics:
    case OpKind::batch_norm_update: return batch_norm(c, n);
  }
  c.fail("unknown op");
}

}  // namespace ablate::graph::static_graph
