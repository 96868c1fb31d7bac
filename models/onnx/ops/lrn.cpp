// ONNX LRN (opsets 1, 13): across channels,
//   y = x / (bias + alpha / size * sum of x^2 over channels [c - floor((size-1)/2),
//                                                           c + ceil((size-1)/2)])^beta
// ONNX divides alpha by size as Caffe does, so its alpha is ablate's (Caffe's) alpha as is.
// Maps to an ablate `lrn` layer: size = size, alpha = alpha, beta = beta, k = bias (with an
// odd size the window is centred, as ablate's).
// Refused: an even size (ablate's window is centred), bias <= 0.
#include "models/onnx/ops/op_kit.h"

namespace ablate::models::onnx_import::ops {
namespace {

void lrn(NodeContext& c) {
  c.refuse_unknown_attributes({"alpha", "beta", "bias", "size"});
  const OnnxValue& x = c.activation(0);
  if (!c.has("size")) c.refuse("size", "is required");
  const std::int64_t size = c.get_int("size", 0);
  if (size < 1 || size % 2 == 0) c.refuse("size", "= " + std::to_string(size) + " is not supported (an odd positive size)");
  const double alpha = c.get_float("alpha", 1e-4), beta = c.get_float("beta", 0.75), bias = c.get_float("bias", 1.0);
  if (!(bias > 0)) c.refuse("bias", "= " + number(bias) + " is not supported (ablate's k is positive)");
  if (!(alpha >= 0)) c.refuse("alpha", "= " + number(alpha) + " is not supported (non-negative)");
  if (!(beta >= 0)) c.refuse("beta", "= " + number(beta) + " is not supported (non-negative)");
  if (x.shape.size() != 4) c.refuse("input 0", "is " + dims_string(x.shape) + "; ablate's lrn reads [N, C, H, W]");
  OnnxValue y;
  y.layer = c.add_layer("lrn", {{"size", std::to_string(size)}, {"alpha", number(alpha)}, {"beta", number(beta)}, {"k", number(bias)}},
                        {x.layer});
  y.shape = x.shape;
  c.set_output(0, y);
}

ABLATE_ONNX_OP("LRN", lrn);

}  // namespace
}  // namespace ablate::models::onnx_import::ops
