// A synthetic labelled image set: each class has a fixed random prototype image, and each
// sample is its class's prototype plus seeded noise, so a model can learn it quickly
// (tests, benchmarks, and runs without data files).
#pragma once

#include <cstdint>

#include "datasets/image_set.h"

namespace ablate::datasets {

ImageSet make_synthetic(std::int64_t count, int channels, int height, int width, int classes,
                        std::uint64_t seed, const std::string& name = "synthetic");

}  // namespace ablate::datasets
