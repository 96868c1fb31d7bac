// softmax_loss: Caffe's SoftmaxWithLoss, TF's softmax_cross_entropy_with_logits + mean,
// nn.CrossEntropyCriterion: the batch mean of -log softmax(x)[label].
//   [N,classes] -> [1]
#include "models/layers/layer_kit.h"

namespace ablate::models::layers {
namespace {

LayerType describe() { return loss_type("softmax_loss"); }

ABLATE_LAYER_TYPE(describe);

}  // namespace
}  // namespace ablate::models::layers
