// nll_loss: Torch's ClassNLLCriterion, Theano's -mean(log p[y]): the batch mean of
// -x[label], after log_softmax.
//   [N,classes] -> [1]
#include "models/layers/layer_kit.h"

namespace ablate::models::layers {
namespace {

LayerType describe() { return loss_type("nll_loss"); }

ABLATE_LAYER_TYPE(describe);

}  // namespace
}  // namespace ablate::models::layers
