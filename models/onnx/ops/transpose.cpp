// ONNX Transpose (opsets 1, 13): out.shape[i] = in.shape[perm[i]] (perm default: reversed). Two
// cases map:
//   a constant           -> the constant permuted (torch.onnx writes nn.Linear on tokens as
//                           MatMul(x, Transpose(W)) when it does not fold constants)
//   perm [0, 2, 1] of an image [N, C, H, W] reshaped to [N, C, H·W] (ViT's patch embedding,
//   `x.reshape(-1, C, H·W).transpose(1, 2)`; torch's `x.flatten(2)` with a symbolic batch
//   computes its shape with Shape, Slice and Concat, which are not mapped)
//                        -> an ablate `tokens` layer, [N, C, H, W] -> [N, H·W, C], token t = h·W + w
// Refused: any other transposition of an activation (the heads of an attention are a pattern,
// patterns/attention_pattern.cpp).
#include <algorithm>

#include "models/onnx/ops/op_kit.h"
#include "models/onnx/patterns/graph_index.h"

namespace ablate::models::onnx_import::ops {
namespace {

void transpose(NodeContext& c) {
  c.refuse_unknown_attributes({"perm"});
  const OnnxValue& x = c.input(0);
  std::vector<std::int64_t> perm = c.get_ints("perm");
  if (perm.empty())
    for (auto d = static_cast<std::int64_t>(x.shape.size()); d-- > 0;) perm.push_back(d);
  std::vector<std::int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t d = 0; d < sorted.size(); ++d)
    if (sorted.size() != x.shape.size() || sorted[d] != static_cast<std::int64_t>(d))
      c.refuse("perm", "= " + dims_string(perm) + " is no permutation of the " + std::to_string(x.shape.size()) + " axes of " +
                           dims_string(x.shape));
  if (x.is_constant()) {
    OnnxValue y;
    y.constant = patterns::permuted(*x.constant, perm);
    y.shape = y.constant->shape;
    c.set_output(0, y);
    return;
  }
  const Dims image = x.layer == kModelInput ? Dims{} : c.ablate_shape(x.layer);
  const bool tokens = perm == std::vector<std::int64_t>{0, 2, 1} && x.shape.size() == 3 && image.size() == 4 &&
                      x.shape[1] == image[1] && x.shape[2] == image[2] * image[3];
  if (!tokens)
    c.refuse("perm", "= " + dims_string(perm) + " of " + dims_string(x.shape) +
                         " is not supported (only [0, 2, 1] of an image [N, C, H, W] reshaped to [N, C, H·W]: "
                         "its positions as tokens; an attention's heads as part of the attention pattern)");
  c.set_output(0, layer_output(c, c.add_layer("tokens", {}, {x.layer})));
}

ABLATE_ONNX_OP("Transpose", transpose);

}  // namespace
}  // namespace ablate::models::onnx_import::ops
