// The check every engine makes of a batch handed to train_step or evaluate: x [N, C, H, W]
// in f32 or f64 fitting the model's input, labels i32 [N] within the model's classes.
#pragma once

#include <cstdint>

#include "kernels/tensor.h"
#include "models/model_spec.h"

namespace ablate::graph {

// Returns N; throws std::invalid_argument naming `what` ("train_step", "evaluate"), the
// tensor and what was expected.
std::int64_t check_batch(const models::ModelSpec& spec, const kernels::Tensor& x, const kernels::Tensor& labels,
                         const char* what);

}  // namespace ablate::graph
