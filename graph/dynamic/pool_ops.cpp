// Pooling and LRN ops of the tape: the ops whose Backend backward reads a backend-private
// workspace (argmax indices, LRN's scale, a oneDNN workspace) kept by the node from forward
// to backward, like the indices of Torch's SpatialMaxPooling. The workspace comes from the
// tape's allocator in the shape the backend chose the first time (Context::workspace).
#include <string>

#include "graph/dynamic/op_record.h"
#include "graph/dynamic/ops.h"

namespace ablate::graph::dynamic {
namespace {

enum WorkspaceOp { kMaxPool = 1, kAvgPool = 2, kLrn = 3 };

struct Pool2dNode final : Node {
  kernels::Tensor x, y, workspace;
  kernels::Pool2dParams p;
  const char* name() const override { return p.kind == kernels::PoolKind::max ? "max_pool2d" : "avg_pool2d"; }
  void backward(const kernels::Tensor& dy, InputGrads& g) override {
    g.backend().pool2d_backward(x, y, dy, workspace, g.out(0, x), p);
  }
  std::vector<kernels::Tensor*> saved() override { return {&x, &y, &workspace}; }
};

struct LrnNode final : Node {
  kernels::Tensor x, y, workspace;
  kernels::LrnParams p;
  const char* name() const override { return "lrn"; }
  void backward(const kernels::Tensor& dy, InputGrads& g) override {
    g.backend().lrn_backward(x, y, dy, workspace, g.out(0, x), p);
  }
  std::vector<kernels::Tensor*> saved() override { return {&x, &y, &workspace}; }
};

}  // namespace

Variable pool2d(const Variable& x, const kernels::Pool2dParams& p) {
  Context& c = op_context("pool2d", {&x});
  require(x.value().ndim() == 4, "pool2d", "input", x.value(), "[N, C, H, W]");
  if (p.out_h <= 0 || p.out_w <= 0)
    throw std::invalid_argument("pool2d: output " + std::to_string(p.out_h) + "x" + std::to_string(p.out_w) +
                                " for input " + x.value().describe() + "; resolve the geometry first (models::pool_params)");
  const kernels::Shape& s = x.shape();
  kernels::Tensor y = c.empty({s[0], s[1], p.out_h, p.out_w}, x.dtype(), x.value().channel_block());  // x's layout
  const WorkspaceKey key{p.kind == kernels::PoolKind::max ? kMaxPool : kAvgPool, s, y.shape()};
  kernels::Tensor workspace = c.workspace(key);
  c.backend().pool2d_forward(x.value(), y, workspace, p);
  c.remember_workspace(key, workspace);
  return op_output(c, y, {&x}, [&] {
    auto node = std::make_shared<Pool2dNode>();
    node->x = x.value();
    node->y = y;
    node->workspace = std::move(workspace);
    node->p = p;
    return node;
  });
}

Variable lrn(const Variable& x, const kernels::LrnParams& p) {
  Context& c = op_context("lrn", {&x});
  require(x.value().ndim() == 4, "lrn", "input", x.value(), "[N, C, H, W]");
  kernels::Tensor y = c.empty_like(x.value());
  const WorkspaceKey key{kLrn, x.shape(), y.shape()};
  kernels::Tensor workspace = c.workspace(key);
  c.backend().lrn_forward(x.value(), y, workspace, p);
  c.remember_workspace(key, workspace);
  return op_output(c, y, {&x}, [&] {
    auto node = std::make_shared<LrnNode>();
    node->x = x.value();
    node->y = y;
    node->workspace = std::move(workspace);
    node->p = p;
    return node;
  });
}

}  // namespace ablate::graph::dynamic
