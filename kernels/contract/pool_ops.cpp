// The contract of pooling (kernels/backend.h): x [N,C,H,W], y [N,C,out_h,out_w] with the
// geometry of Pool2dParams (make_pool2d_params); the workspace's format is the backend's own,
// but max pooling's backward needs the one its forward filled.
#include "kernels/backend.h"
#include "kernels/contract/observed_call.h"
#include "kernels/contract/op_check.h"

namespace ablate::kernels {
namespace {

// x [N,C,H,W] and the parameters; returns the output shape [N,C,out_h,out_w].
Shape checked_pool(const OpCheck& check, const Tensor& x, const Pool2dParams& p) {
  check.floating("x", x);
  check.ndim("x", x, 4);
  check.pool_params(p, x.dim(2), x.dim(3));
  return {x.dim(0), x.dim(1), p.out_h, p.out_w};
}

}  // namespace

void Backend::pool2d_forward(const Tensor& x, Tensor& y, Tensor& workspace, const Pool2dParams& p) {
  const OpCheck check(*this, Op::pool2d_forward);
  const Shape out = checked_pool(check, x, p);
  check.like_shape("y", y, x, out);
  observed_call(*this, Op::pool2d_forward, {{&y}, &workspace, {&x}}, [&] { pool2d_forward_impl(x, y, workspace, p); });
}

// y is read only by max pooling's `all` gradient (pool_gradient()); otherwise it may be empty
// (the first maximum's gradient routes through the workspace).
void Backend::pool2d_backward(const Tensor& x, const Tensor& y, const Tensor& dy, const Tensor& workspace, Tensor& dx,
                              const Pool2dParams& p) {
  const OpCheck check(*this, Op::pool2d_backward);
  const Shape out = checked_pool(check, x, p);
  check.like_shape("dy", dy, x, out);
  check.like_shape("dx", dx, x, x.shape());
  const bool reads_y = p.kind == PoolKind::max && pool_gradient() == PoolGradient::all;
  if (reads_y && y.empty())
    check.fail("y is empty, expected the output of pool2d_forward: max pooling's 'all' gradient compares x with y");
  if (!y.empty()) check.like_shape("y", y, x, out);
  if (p.kind == PoolKind::max && !reads_y && workspace.empty())
    check.fail("max pooling needs the workspace that pool2d_forward filled; it is empty");
  observed_call(*this, Op::pool2d_backward, {{&dx}, nullptr, {&x, &dy}}, [&] { pool2d_backward_impl(x, y, dy, workspace, dx, p); });
}

}  // namespace ablate::kernels
