// Top-1 correct count over a batch (see accuracy.h).
#include "graph/layerwise/accuracy.h"

#include <stdexcept>

namespace ablate::graph::layerwise {

std::int64_t count_correct(kernels::Backend& backend, const kernels::Tensor& scores, const kernels::Tensor& labels,
                           kernels::Tensor& predictions) {
  if (scores.ndim() != 2 || labels.numel() != scores.dim(0) || predictions.numel() != scores.dim(0))
    throw std::invalid_argument("accuracy of scores " + scores.describe() + " against labels " + labels.describe() +
                                " into predictions " + predictions.describe() + ": expected [N, K], [N] and [N]");
  backend.argmax_rows(scores, predictions);
  const std::int32_t* predicted = predictions.data<std::int32_t>();
  const std::int32_t* truth = labels.data<std::int32_t>();
  std::int64_t correct = 0;
  for (std::int64_t n = 0; n < scores.dim(0); ++n) correct += predicted[n] == truth[n];
  return correct;
}

}  // namespace ablate::graph::layerwise
