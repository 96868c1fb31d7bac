// TrainingDropout: the inverted dropout a module applies in training, shared by the dropout
// module (nn.Dropout) and the attention module's dropout on its weights. The mask is
// Backend::dropout_mask of x's shape with the seed graph::dropout_seed(seed, key, iteration), as
// the layer-wise engine and the static graph draw it, so every strategy drops the same units.
// One sample at a time (Torch's per-sample mode, x [1, ...]) the batch's mask [batch, ...] is
// drawn once, at sample 0, and each sample takes its row: the same units as the batched mode.
#pragma once

#include <string>

#include "graph/dynamic/module.h"
#include "kernels/tensor.h"

namespace ablate::graph::dynamic {

class TrainingDropout {
 public:
  // `key` names the masks (the layer name for a dropout layer); `layer` is whose errors these are.
  TrainingDropout(double keep, std::string key, const models::LayerSpec& layer);
  // Whether apply() drops anything in this context: training, with keep < 1.
  bool drops(const ForwardContext& context) const { return context.train && keep_ < 1; }
  // x * mask in training when keep < 1, else x itself.
  Variable apply(const Variable& x, const ForwardContext& context);

 private:
  double keep_;
  std::string key_;
  models::LayerSpec layer_;
  kernels::Tensor batch_mask_;  // per-sample mode: the mask of the current batch
};

}  // namespace ablate::graph::dynamic
