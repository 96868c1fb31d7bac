// Inverted dropout in training for the dynamic modules (see training_dropout.h).
#include "graph/dynamic/training_dropout.h"

#include "graph/dropout_seed.h"
#include "graph/dynamic/ops.h"

namespace ablate::graph::dynamic {

TrainingDropout::TrainingDropout(double keep, std::string key, const models::LayerSpec& layer)
    : keep_(keep), key_(std::move(key)), layer_(layer) {}

Variable TrainingDropout::apply(const Variable& x, const ForwardContext& context) {
  if (!drops(context)) return x;
  const std::uint64_t seed = dropout_seed(context.seed, key_, context.iteration);
  if (context.sample < 0) return dropout(x, keep_, seed, context.first_sample);
  if (context.sample == 0) {
    kernels::Shape shape = x.shape();
    shape[0] = context.batch;
    batch_mask_ = x.context().empty(shape, x.dtype());
    x.context().backend().dropout_mask(batch_mask_, keep_, seed, dropout_first_index(context.first_sample, batch_mask_));
  }
  if (batch_mask_.empty() || batch_mask_.dim(0) != context.batch)
    layer_.fail("per-sample forward of sample " + std::to_string(context.sample) + " before sample 0 of its batch");
  return dropout(x, batch_mask_.slice0(context.sample, context.sample + 1));
}

}  // namespace ablate::graph::dynamic
