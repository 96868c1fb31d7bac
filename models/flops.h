// Model FLOPs: the floating-point operations a model's convolutions and fully connected
// layers do for a batch (2 per multiply-add), the numerator of model FLOP utilisation (MFU):
//   convolution    2 N K C KH KW OH OW
//   conv_map       2 N T KH KW OH OW        (T = K * fan_in connections)
//   inner_product  2 N I O
// Other layers are counted as 0 (they are memory-bound and a few percent of the work).
// A training step is counted as 3 x forward (forward, backward-data, backward-weights), the
// usual MFU convention, whether or not an engine skips the first layer's backward-data.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "models/model_spec.h"

namespace ablate::models {

struct ModelFlops {
  double forward = 0;                                     // one forward pass of the batch
  std::vector<std::pair<std::string, double>> per_layer;  // forward, by layer (counted ones)
  double training_step() const { return 3 * forward; }
};

ModelFlops model_flops(const ModelSpec& spec, std::int64_t batch);

}  // namespace ablate::models
