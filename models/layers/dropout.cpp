// dropout: inverted dropout with a keep probability (as TF's keep_prob; Caffe's
// dropout_ratio is 1 - keep): y = x * mask / keep in training, the identity when testing.
// Any shape; it runs in place as Caffe's prototxts write it (models::dropout_keep).
#include "models/layers/layer_kit.h"

namespace ablate::models::layers {
namespace {

LayerType describe() {
  LayerType t;
  t.name = "dropout";
  t.keys = {{"keep", kind(ValueKind::keep_probability)}};
  t.shape = same_shape;
  t.in_place = true;
  return t;
}

ABLATE_LAYER_TYPE(describe);

}  // namespace
}  // namespace ablate::models::layers
