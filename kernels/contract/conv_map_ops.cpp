// The contract of Torch's connection-table convolution (kernels/backend.h): x [N,C,H,W],
// w [T,KH,KW], table i32 [T, 2] of (input plane in [0, C), output plane in [0, K)) rows,
// bias [K] or empty, y [N,K,OH,OW] (OH as for conv2d), one float dtype. K is read from y (dy).
#include "kernels/backend.h"
#include "kernels/contract/observed_call.h"
#include "kernels/contract/op_check.h"
#include "kernels/contract/op_flops.h"

namespace ablate::kernels {
namespace {

// image (x or dx) [N,C,H,W], kernels (w or dw) [T,KH,KW], out (y or dy) [N,K,OH,OW] of the
// first input's dtype (lead) and the table.
void checked_map(const OpCheck& check, const Tensor& lead, const char* image_arg, const Tensor& image,
                 const char* kernels_arg, const Tensor& kernels, const char* out_arg, const Tensor& out,
                 const Tensor& table, const Conv2dParams& p) {
  check.like(image_arg, image, lead);
  check.like(kernels_arg, kernels, lead);
  check.like(out_arg, out, lead);
  check.ndim(image_arg, image, 4);
  check.ndim(kernels_arg, kernels, 3);
  check.ndim(out_arg, out, 4);
  const std::int64_t k = out.dim(1);
  check.shape(out_arg, out, check.conv_output(image.shape(), k, kernels.dim(1), kernels.dim(2), p));
  check.table(table, kernels.dim(0), image.dim(1), k);
}

}  // namespace

void Backend::conv2d_map_forward(const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& table, Tensor& y,
                                 const Conv2dParams& p) {
  const OpCheck check(*this, Op::conv2d_map_forward);
  check.floating("x", x);
  checked_map(check, x, "x", x, "w", w, "y", y, table, p);
  if (!bias.empty()) check.like_shape("bias", bias, x, {y.dim(1)});
  observed_call(*this, Op::conv2d_map_forward, {{&y}, nullptr, {&x, &w, &bias, &table}}, [&] { return flops::conv2d_map(w, y); },
                [&] { conv2d_map_forward_impl(x, w, bias, table, y, p); });
}

void Backend::conv2d_map_backward_data(const Tensor& dy, const Tensor& w, const Tensor& table, Tensor& dx,
                                       const Conv2dParams& p) {
  const OpCheck check(*this, Op::conv2d_map_backward_data);
  check.floating("dy", dy);
  checked_map(check, dy, "dx", dx, "w", w, "dy", dy, table, p);
  observed_call(*this, Op::conv2d_map_backward_data, {{&dx}, nullptr, {&dy, &w, &table}}, [&] { return flops::conv2d_map(w, dy); },
                [&] { conv2d_map_backward_data_impl(dy, w, table, dx, p); });
}

void Backend::conv2d_map_backward_weights(const Tensor& x, const Tensor& dy, const Tensor& table, Tensor& dw,
                                          Tensor& dbias, const Conv2dParams& p) {
  const OpCheck check(*this, Op::conv2d_map_backward_weights);
  check.floating("x", x);
  checked_map(check, x, "x", x, "dw", dw, "dy", dy, table, p);
  if (!dbias.empty()) check.like_shape("dbias", dbias, x, {dy.dim(1)});
  observed_call(*this, Op::conv2d_map_backward_weights, {{&dw, &dbias}, nullptr, {&x, &dy, &table}}, [&] { return flops::conv2d_map(dw, dy); },
                [&] { conv2d_map_backward_weights_impl(x, dy, table, dw, dbias, p); });
}

}  // namespace ablate::kernels
