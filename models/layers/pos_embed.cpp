// pos_embed: a learned positional embedding added to every sample's tokens (ViT's
// x + self.pos_embed, BERT's position embeddings):
//   [N, T, D] -> [N, T, D]     y[n, t, d] = x[n, t, d] + weight[t, d];  weight [T, D]
// weight starts as truncated_normal:0.02 (ViT's trunc_normal_(std=.02)). Every strategy runs it
// as a bias over the T*D values of a sample (Backend::bias_add on [N, T*D]); its gradient is
// dy summed over the batch.
#include "models/layers/layer_kit.h"

namespace ablate::models::layers {
namespace {

LayerType describe() {
  LayerType t;
  t.name = "pos_embed";
  t.keys = weight_keys();
  t.shape = [](const LayerSpec& layer, const ModelSpec&, LayerShapes& s) {
    require_tokens(layer, s.input, "a position embedding per token");
    s.output = s.input;
    s.add_param("weight", {s.input[1], s.input[2]});
  };
  t.default_inits = {{"weight", "truncated_normal:0.02"}};
  return t;
}

ABLATE_LAYER_TYPE(describe);

}  // namespace
}  // namespace ablate::models::layers
