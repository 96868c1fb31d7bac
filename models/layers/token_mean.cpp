// token_mean: the mean of the tokens, ViT's global average pooling head (x.mean(dim=1)) in place
// of a class token:
//   [N, T, D] -> [N, D]     y[n, d] = (1/T) sum_t x[n, t, d]
// Every strategy runs it as an average pooling of [N, 1, T, D] with one T x 1 window
// (models::token_mean_pool_params); its gradient spreads dy / T over the tokens.
#include "models/layers/layer_kit.h"

namespace ablate::models::layers {
namespace {

LayerType describe() {
  LayerType t;
  t.name = "token_mean";
  t.backward_reads_output = true;  // as pooling: the pool2d backward is handed y
  t.shape = [](const LayerSpec& layer, const ModelSpec&, LayerShapes& s) {
    require_tokens(layer, s.input, "the mean over the tokens");
    s.output = {s.input[0], s.input[2]};
  };
  return t;
}

ABLATE_LAYER_TYPE(describe);

}  // namespace
}  // namespace ablate::models::layers
