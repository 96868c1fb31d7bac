// The evaluation pieces every engine shares:
//   - top-1 accuracy as Caffe's Accuracy layer (top_k 1) counts it for the test net:
//     predictions = Backend::argmax_rows(scores) (ties: the lowest class), then the count of
//     predictions equal to the labels (a host-side count over N integers);
//   - evaluation on the weight averages (TF's cifar10_eval.py restores the
//     ExponentialMovingAverage shadows into the variables before evaluating): the engine's
//     forward runs while the parameters hold the shadows, and the trained values come back.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "graph/engine.h"
#include "graph/optim/weight_average.h"
#include "kernels/backend.h"

namespace ablate::graph {

// predictions i32 [N] on the host or the backend's device, labels i32 [N] on the host.
std::int64_t count_correct(kernels::Backend& backend, const kernels::Tensor& predictions, const kernels::Tensor& labels);
// scores [N, K] -> predictions i32 [N] (written; a host tensor), then the count.
std::int64_t count_correct(kernels::Backend& backend, const kernels::Tensor& scores, const kernels::Tensor& labels,
                           kernels::Tensor& predictions);

// The weight average of EngineOptions::weight_average_decay over `params` (shadows from their
// current values), or nullptr when the decay is 0 (evaluation on the weights as trained).
std::unique_ptr<WeightAverage> make_weight_average(const EngineOptions& options, kernels::Backend& backend,
                                                   const std::vector<Parameter*>& params);
// Runs `forward` on the averages when `average` is set, else on the parameters as they are.
EvalResult evaluate_averaged(WeightAverage* average, const std::vector<Parameter*>& params,
                             const std::function<EvalResult()>& forward);

}  // namespace ablate::graph
