// tokens: an image's positions as a sequence of tokens, the second half of ViT's patch
// embedding (Dosovitskiy et al. 2021: a convolution of kernel = stride = patch, then
// x.flatten(2).transpose(1, 2)):
//   [N, C, H, W] -> [N, H*W, C]      token t = h W + w holds the C channels at (h, w)
// Every strategy runs it as Backend::permute of [N, C, H*W] by (0, 2, 1); its gradient is the
// same permute back.
#include "kernels/tensor.h"
#include "models/layers/layer_kit.h"

namespace ablate::models::layers {
namespace {

LayerType describe() {
  LayerType t;
  t.name = "tokens";
  t.shape = [](const LayerSpec& layer, const ModelSpec&, LayerShapes& s) {
    require_rank(layer, s.input, 4, "[N, C, H, W] (tokens turns an image's positions into tokens)");
    s.output = {s.input[0], s.input[2] * s.input[3], s.input[1]};
  };
  return t;
}

ABLATE_LAYER_TYPE(describe);

}  // namespace
}  // namespace ablate::models::layers
