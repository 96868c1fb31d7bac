// Top-1 accuracy of a batch, as Caffe's Accuracy layer (top_k 1) computes it for the test
// net: predictions = Backend::argmax_rows(scores) (ties: the lowest class), then the count of
// predictions equal to the labels (a host-side count over N integers).
#pragma once

#include <cstdint>

#include "kernels/backend.h"

namespace ablate::graph::layerwise {

// scores [N, K], labels i32 [N], predictions i32 [N] (written; host tensors).
std::int64_t count_correct(kernels::Backend& backend, const kernels::Tensor& scores, const kernels::Tensor& labels,
                           kernels::Tensor& predictions);

}  // namespace ablate::graph::layerwise
