// ONNX Conv (opsets 1, 11), 2-D: Y [N,K,OH,OW] = X [N,C,H,W] correlated with W [K,C,kh,kw],
// plus B [K] when given; OH = floor((H + pad_top + pad_bottom - kh) / stride) + 1.
// Maps to one ablate `convolution` layer (Caffe's Convolution, the same cross-correlation):
//   outputs=K, kernel=kh (kernel_h, kernel_w when not square), stride=s
//   pads [p, p, p, p]     -> padding=explicit pad=p
//   auto_pad SAME_UPPER   -> padding=same (TF SAME: out = ceil(H / s), the odd padded pixel at
//                            the bottom/right, as SAME_UPPER puts it)
//   auto_pad VALID        -> padding=valid
//   no B                  -> bias=false (a constant Add after it may fold in: add.cpp)
//   given <layer>.weight = W (same layout [K, C, kh, kw]), <layer>.bias = B
// Refused, naming the attribute: group != 1, dilations != 1, strides differing between H and
// W, asymmetric pads, auto_pad SAME_LOWER, a kernel that is not 2-D.
#include "models/onnx/ops/op_kit.h"

namespace ablate::models::onnx_import::ops {
namespace {

void conv(NodeContext& c) {
  c.refuse_unknown_attributes({"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
  const OnnxValue& x = c.activation(0);
  const GivenValues& w = c.constant(1);
  if (x.shape.size() != 4) c.refuse("input 0", "is " + dims_string(x.shape) + "; ablate's convolution reads [N, C, H, W] (2-D Conv only)");
  if (w.shape.size() != 4) c.refuse("input 1 (W)", "is " + dims_string(w.shape) + "; expected [K, C, kh, kw] (2-D Conv only)");
  if (c.get_int("group", 1) != 1) c.refuse("group", "= " + std::to_string(c.get_int("group", 1)) + " is not supported (ablate's convolution has group 1)");
  if (w.shape[1] != x.shape[1])
    c.refuse("input 1 (W)", "is " + dims_string(w.shape) + " for an input of " + std::to_string(x.shape[1]) + " channels");
  for (std::int64_t d : c.get_ints("dilations"))
    if (d != 1) c.refuse("dilations", "other than 1 are not supported");
  const auto kernel = c.get_ints("kernel_shape");
  if (!kernel.empty() && (kernel.size() != 2 || kernel[0] != w.shape[2] || kernel[1] != w.shape[3]))
    c.refuse("kernel_shape", "= " + dims_string(kernel) + " does not match W " + dims_string(w.shape));
  auto strides = c.get_ints("strides");
  if (strides.empty()) strides = {1, 1};
  if (strides.size() != 2 || strides[0] != strides[1] || strides[0] < 1)
    c.refuse("strides", "= " + dims_string(strides) + " is not supported (one positive stride for H and W)");
  std::map<std::string, std::string> p{{"outputs", std::to_string(w.shape[0])}, {"stride", std::to_string(strides[0])}};
  if (w.shape[2] == w.shape[3]) {
    p["kernel"] = std::to_string(w.shape[2]);
  } else {
    p["kernel_h"] = std::to_string(w.shape[2]);
    p["kernel_w"] = std::to_string(w.shape[3]);
  }
  const std::string auto_pad = c.get_string("auto_pad", "NOTSET");
  const auto pads = c.get_ints("pads");
  if (auto_pad == "SAME_UPPER") {
    p["padding"] = "same";
  } else if (auto_pad == "VALID") {
    p["padding"] = "valid";
  } else if (auto_pad == "NOTSET") {
    if (!pads.empty()) {
      if (pads.size() != 4 || pads[0] != pads[1] || pads[0] != pads[2] || pads[0] != pads[3] || pads[0] < 0)
        c.refuse("pads", "= " + dims_string(pads) + " is not supported (ablate pads every side alike: [p, p, p, p])");
      p["pad"] = std::to_string(pads[0]);
    }
  } else {
    c.refuse("auto_pad", "= " + auto_pad + " is not supported (NOTSET, VALID or SAME_UPPER)");
  }
  if (auto_pad != "NOTSET" && !pads.empty()) c.refuse("pads", "given with auto_pad " + auto_pad);
  const bool bias = c.has_input(2);
  if (!bias) p["bias"] = "false";
  if (bias && static_cast<std::int64_t>(c.constant(2).values.size()) != w.shape[0])
    c.refuse("input 2 (B)", "is " + dims_string(c.constant(2).shape) + "; expected [" + std::to_string(w.shape[0]) + "]");
  const std::string layer = c.add_layer("convolution", p, {x.layer});
  c.give(layer + ".weight", w);
  if (bias) c.give(layer + ".bias", {{w.shape[0]}, c.constant(2).values});
  c.set_output(0, layer_output(c, layer));
}

ABLATE_ONNX_OP("Conv", conv);

}  // namespace
}  // namespace ablate::models::onnx_import::ops
