// The tape's attention ops, as PyTorch before its fused kernel ran attention:
// torch.bmm / torch.matmul (batched_matmul), softmax along the last axis with a scale, F.layer_norm,
// and Tensor.permute(...).contiguous(); each is one Backend op forward and its backward ops.
//   batched_matmul  c = alpha op(a) op(b):  da = alpha dc op(b)^T (a^T: alpha op(b) dc^T),
//                   db = alpha op(a)^T dc (b^T: alpha dc^T op(a)), each a batched_gemm
//   softmax_last    dx = s y (dy - sum dy y)               (from y)
//   layer_norm      dx, dweight, dbias from x and the row statistics of the forward
//   permute         dx = permute(dy, inverse)
#include <string>

#include "graph/dynamic/op_record.h"
#include "graph/dynamic/ops.h"

namespace ablate::graph::dynamic {
namespace {

struct BatchedMatmulNode final : Node {
  kernels::Tensor a, b;
  bool ta = false, tb = false;
  double alpha = 1.0;
  const char* name() const override { return "batched_matmul"; }
  void backward(const kernels::Tensor& dc, InputGrads& g) override {
    if (g.wanted(0)) {
      if (ta) g.backend().batched_gemm(tb, true, alpha, b, dc, 0.0, g.out(0, a));
      else g.backend().batched_gemm(false, !tb, alpha, dc, b, 0.0, g.out(0, a));
    }
    if (g.wanted(1)) {
      if (tb) g.backend().batched_gemm(true, ta, alpha, dc, a, 0.0, g.out(1, b));
      else g.backend().batched_gemm(!ta, false, alpha, a, dc, 0.0, g.out(1, b));
    }
  }
  std::vector<kernels::Tensor*> saved() override { return {&a, &b}; }
};

struct SoftmaxLastNode final : Node {
  kernels::Tensor y;
  double scale = 1.0;
  const char* name() const override { return "softmax_last"; }
  void backward(const kernels::Tensor& dy, InputGrads& g) override {
    g.backend().softmax_last_backward(y, dy, scale, g.out(0, y));
  }
  std::vector<kernels::Tensor*> saved() override { return {&y}; }
};

struct LayerNormNode final : Node {
  kernels::Tensor x, weight, mean, rstd;
  bool affine = false;
  const char* name() const override { return "layer_norm"; }
  void backward(const kernels::Tensor& dy, InputGrads& g) override {
    kernels::Tensor none_dx, none_dw, none_db;
    const kernels::Shape d{x.shape().back()};
    g.backend().layer_norm_backward(x, dy, weight, mean, rstd, g.wanted(0) ? g.out(0, x) : none_dx,
                                    affine && g.wanted(1) ? g.out(1, d, x.dtype()) : none_dw,
                                    affine && g.wanted(2) ? g.out(2, d, x.dtype()) : none_db);
  }
  std::vector<kernels::Tensor*> saved() override { return {&x, &weight, &mean, &rstd}; }
};

struct PermuteNode final : Node {
  kernels::Shape input_shape;
  std::vector<int> inverse;
  const char* name() const override { return "permute"; }
  void backward(const kernels::Tensor& dy, InputGrads& g) override {
    g.backend().permute(dy, inverse, g.out(0, input_shape, dy.dtype()));
  }
};

}  // namespace

Variable batched_matmul(const Variable& a, const Variable& b, bool trans_a, bool trans_b, double alpha) {
  Context& c = op_context("batched_matmul", {&a, &b});
  require(a.value().ndim() == 3, "batched_matmul", "a", a.value(), "[B, M, K]");
  require(b.value().ndim() == 3, "batched_matmul", "b", b.value(), "[B, K, N]");
  const kernels::Shape& sa = a.shape();
  const kernels::Shape& sb = b.shape();
  kernels::Tensor y = c.empty({sa[0], trans_a ? sa[2] : sa[1], trans_b ? sb[1] : sb[2]}, a.dtype());
  c.backend().batched_gemm(trans_a, trans_b, alpha, a.value(), b.value(), 0.0, y);
  return op_output(c, std::move(y), {&a, &b}, [&] {
    auto node = std::make_shared<BatchedMatmulNode>();
    node->a = a.value();
    node->b = b.value();
    node->ta = trans_a;
    node->tb = trans_b;
    node->alpha = alpha;
    return node;
  });
}

Variable softmax_last(const Variable& x, double scale) {
  Context& c = op_context("softmax_last", {&x});
  kernels::Tensor y = c.empty(x.shape(), x.dtype());
  c.backend().softmax_last_forward(x.value(), scale, y);
  return op_output(c, y, {&x}, [&] {
    auto node = std::make_shared<SoftmaxLastNode>();
    node->y = y;
    node->scale = scale;
    return node;
  });
}

Variable layer_norm(const Variable& x, const Variable& weight, const Variable& bias, double epsilon) {
  Context& c = op_context("layer_norm", {&x, &weight, &bias});
  require(x.value().ndim() >= 1, "layer_norm", "input", x.value(), "[..., D]");
  const kernels::Shape rows{x.value().numel() / x.shape().back()};
  kernels::Tensor y = c.empty(x.shape(), x.dtype()), mean = c.empty(rows, x.dtype()), rstd = c.empty(rows, x.dtype());
  c.backend().layer_norm_forward(x.value(), value_or_none(weight), value_or_none(bias), epsilon, y, mean, rstd);
  return op_output(c, std::move(y), {&x, &weight, &bias}, [&] {
    auto node = std::make_shared<LayerNormNode>();
    node->x = x.value();
    node->weight = value_or_none(weight);
    node->mean = std::move(mean);
    node->rstd = std::move(rstd);
    node->affine = weight.defined();
    return node;
  });
}

Variable permute(const Variable& x, const std::vector<int>& perm) {
  Context& c = op_context("permute", {&x});
  require(static_cast<int>(perm.size()) == x.value().ndim(), "permute", "input", x.value(),
          [&] { return "rank " + std::to_string(perm.size()) + " (one entry of perm per dimension)"; });
  kernels::Shape out;
  std::vector<int> inverse(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) {
    out.push_back(x.shape().at(static_cast<std::size_t>(perm[i])));
    inverse.at(static_cast<std::size_t>(perm[i])) = static_cast<int>(i);
  }
  kernels::Tensor y = c.empty(out, x.dtype());
  c.backend().permute(x.value(), perm, y);
  return op_output(c, std::move(y), {&x}, [&] {
    auto node = std::make_shared<PermuteNode>();
    node->input_shape = x.shape();
    node->inverse = inverse;
    return node;
  });
}

}  // namespace ablate::graph::dynamic
