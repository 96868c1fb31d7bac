// Top-1 counts and evaluation on the weight averages (see evaluation.h).
#include "graph/evaluation.h"

#include <optional>
#include <stdexcept>

namespace ablate::graph {

std::int64_t count_correct(kernels::Backend& backend, const kernels::Tensor& predictions,
                           const kernels::Tensor& labels) {
  if (predictions.dtype() != kernels::DType::i32 || labels.dtype() != kernels::DType::i32 ||
      predictions.numel() != labels.numel())
    throw std::invalid_argument("accuracy of predictions " + predictions.describe() + " against labels " +
                                labels.describe() + ": expected i32 [N] and i32 [N]");
  kernels::Tensor host = predictions;
  if (predictions.device() != kernels::Device::cpu) {
    host = kernels::Tensor(predictions.shape(), predictions.dtype());
    backend.copy(predictions, host);
  }
  const std::int32_t* predicted = host.data<std::int32_t>();
  const std::int32_t* truth = labels.data<std::int32_t>();
  std::int64_t correct = 0;
  for (std::int64_t n = 0; n < labels.numel(); ++n) correct += predicted[n] == truth[n];
  return correct;
}

std::int64_t count_correct(kernels::Backend& backend, const kernels::Tensor& scores, const kernels::Tensor& labels,
                           kernels::Tensor& predictions) {
  if (scores.ndim() != 2 || labels.numel() != scores.dim(0) || predictions.numel() != scores.dim(0))
    throw std::invalid_argument("accuracy of scores " + scores.describe() + " against labels " + labels.describe() +
                                " into predictions " + predictions.describe() + ": expected [N, K], [N] and [N]");
  backend.argmax_rows(scores, predictions);
  return count_correct(backend, predictions, labels);
}

std::unique_ptr<WeightAverage> make_weight_average(const EngineOptions& options, kernels::Backend& backend,
                                                   const std::vector<Parameter*>& params) {
  if (options.weight_average_decay <= 0) return nullptr;
  auto average = std::make_unique<WeightAverage>(options.weight_average_decay, backend);
  average->begin(params);
  return average;
}

EvalResult evaluate_averaged(WeightAverage* average, const std::vector<Parameter*>& params,
                             const std::function<EvalResult()>& forward) {
  std::optional<WeightAverage::Swap> averaged;
  if (average) averaged.emplace(*average, params);
  return forward();
}

}  // namespace ablate::graph
