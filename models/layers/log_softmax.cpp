// log_softmax: Torch's nn.LogSoftMax (and Theano's log of the softmax) over the rows of its
// input, before nll_loss.
//   [N,F] -> [N,F]; its backward reads y (dx = dy - exp(y) sum dy)
#include "models/layers/layer_kit.h"

namespace ablate::models::layers {
namespace {

LayerType describe() {
  LayerType t;
  t.name = "log_softmax";
  t.shape = same_shape_of_rank(2, "[N, F]");
  t.backward_reads_output = true;
  return t;
}

ABLATE_LAYER_TYPE(describe);

}  // namespace
}  // namespace ablate::models::layers
