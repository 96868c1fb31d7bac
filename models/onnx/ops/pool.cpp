// ONNX MaxPool (opsets 8, 10, 11, 12) and AveragePool (7, 10, 11), 2-D, square windows:
// Y [N,C,OH,OW], OH = floor((H + 2p - k) / s) + 1, or ceil(...) + 1 with ceil_mode 1.
// Map to one ablate `pooling` layer mode=max / avg kernel=k stride=s (ONNX's default stride
// is 1, written out: ablate's default is the kernel):
//   pads [p, p, p, p]   -> pad=p, padding=valid (floor) or padding=caffe_ceil (ceil_mode 1)
//   auto_pad SAME_UPPER -> padding=tf_same (out = ceil(H / s), the odd padded cell at the end)
//   auto_pad VALID      -> padding=valid
// What ablate's average divides by (models/README.md, kernels/op_params.cpp): valid and
// caffe_ceil count the padding, a window clipped to [-p, H + p); tf_same counts real cells
// only. So AveragePool maps where ONNX's divisor is the same:
//   no padding, floor                     either count_include_pad
//   pads p > 0, floor                     count_include_pad 1 only (its windows lie within
//                                         the padded input: the divisor is k*k)
//   ceil_mode 1, no padding               count_include_pad 0 (a window past the input counts
//                                         its real cells, as caffe_ceil's clip to [0, H));
//                                         count_include_pad 1 only if no window overruns
//   ceil_mode 1 with pads                 count_include_pad 1 only if no window overruns
//   SAME_UPPER                            count_include_pad 0, or no padding needed
// and the output size must be ONNX's: Caffe's ceil rounding drops a last window that starts
// in the bottom padding, ONNX (up to opset 17) keeps it; such a geometry is refused.
// Max pooling ignores padded cells in both. Refused, naming the attribute: a kernel that is
// not 2-D and square, strides differing between H and W, asymmetric pads, auto_pad
// SAME_LOWER, dilations != 1, storage_order 1, the Indices output used.
#include "models/onnx/ops/op_kit.h"

namespace ablate::models::onnx_import::ops {
namespace {

// ONNX's output size along one axis (opsets <= 17).
std::int64_t onnx_out(std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t p, bool ceil_mode) {
  const std::int64_t span = in + 2 * p - k;
  return (ceil_mode ? (span + s - 1) / s : span / s) + 1;
}

void pool(NodeContext& c, bool average) {
  if (average)
    c.refuse_unknown_attributes({"auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads", "strides"});
  else
    c.refuse_unknown_attributes({"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"});
  c.only_first_output();
  const OnnxValue& x = c.activation(0);
  if (x.shape.size() != 4) c.refuse("input 0", "is " + dims_string(x.shape) + "; ablate's pooling reads [N, C, H, W] (2-D only)");
  const auto kernel = c.get_ints("kernel_shape");
  if (kernel.size() != 2 || kernel[0] != kernel[1])
    c.refuse("kernel_shape", "= " + dims_string(kernel) + " is not supported (a square 2-D window [k, k])");
  auto strides = c.get_ints("strides");
  if (strides.empty()) strides = {1, 1};
  if (strides.size() != 2 || strides[0] != strides[1])
    c.refuse("strides", "= " + dims_string(strides) + " is not supported (one stride for H and W)");
  for (std::int64_t d : c.get_ints("dilations"))
    if (d != 1) c.refuse("dilations", "other than 1 are not supported");
  if (c.get_int("storage_order", 0) != 0) c.refuse("storage_order", "= 1 is not supported");
  const std::int64_t k = kernel[0], s = strides[0], h = x.shape[2], w = x.shape[3];
  const bool ceil_mode = c.get_int("ceil_mode", 0) != 0;
  const bool include_pad = c.get_int("count_include_pad", 0) != 0;
  const std::string auto_pad = c.get_string("auto_pad", "NOTSET");
  const auto pads = c.get_ints("pads");
  std::map<std::string, std::string> p{{"mode", average ? "avg" : "max"}, {"kernel", std::to_string(k)}, {"stride", std::to_string(s)}};
  if (auto_pad == "SAME_UPPER") {
    if (!pads.empty()) c.refuse("pads", "given with auto_pad SAME_UPPER");
    p["padding"] = "tf_same";
    bool padded = false;
    for (std::int64_t in : {h, w}) padded = padded || ((in + s - 1) / s - 1) * s + k > in;
    if (average && include_pad && padded)
      c.refuse("count_include_pad", "= 1 with auto_pad SAME_UPPER is not supported (ablate's SAME average counts real cells only)");
  } else if (auto_pad == "NOTSET" || auto_pad == "VALID") {
    std::int64_t pad = 0;
    if (!pads.empty()) {
      if (auto_pad == "VALID") c.refuse("pads", "given with auto_pad VALID");
      if (pads.size() != 4 || pads[0] != pads[1] || pads[0] != pads[2] || pads[0] != pads[3] || pads[0] < 0)
        c.refuse("pads", "= " + dims_string(pads) + " is not supported (ablate pads every side alike: [p, p, p, p])");
      pad = pads[0];
    }
    p["padding"] = ceil_mode ? "caffe_ceil" : "valid";
    if (pad > 0) p["pad"] = std::to_string(pad);
    bool overruns = false;
    for (std::int64_t in : {h, w}) {
      const std::int64_t out = onnx_out(in, k, s, pad, ceil_mode);
      overruns = overruns || (out - 1) * s + k > in + 2 * pad;
      if (ceil_mode && pad > 0 && (out - 1) * s >= in + pad)
        c.refuse("ceil_mode", "= 1 here gives ONNX a last window starting in the padding, which Caffe's ceil rounding "
                              "(ablate's caffe_ceil) drops: the output sizes differ");
    }
    if (average && pad > 0 && !include_pad)
      c.refuse("count_include_pad", "= 0 with pads is not supported (ablate's average over explicit pads counts the padding: "
                                    "count_include_pad 1)");
    if (average && include_pad && overruns)
      c.refuse("count_include_pad", "= 1 with ceil_mode 1 where a window runs past the padded input is not supported "
                                    "(ablate's divisor clips such a window; ONNX's may not)");
  } else {
    c.refuse("auto_pad", "= " + auto_pad + " is not supported (NOTSET, VALID or SAME_UPPER)");
  }
  const std::string layer = c.add_layer("pooling", p, {x.layer});
  c.set_output(0, layer_output(c, layer));
}

void max_pool(NodeContext& c) { pool(c, false); }
void average_pool(NodeContext& c) { pool(c, true); }

ABLATE_ONNX_OP("MaxPool", max_pool);
ABLATE_ONNX_OP("AveragePool", average_pool);

}  // namespace
}  // namespace ablate::models::onnx_import::ops
