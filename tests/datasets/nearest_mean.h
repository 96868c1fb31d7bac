// Nearest class mean: the accuracy on `test` of classifying each image by the closest
// per-class mean image of `train`. A set whose classes carry signal scores far above chance.
#pragma once

#include <limits>
#include <vector>

#include "datasets/image_set.h"

namespace ablate::datasets::testing {

inline double nearest_mean_accuracy(const ImageSet& train, const ImageSet& test) {
  const std::int64_t size = train.image_size();
  std::vector<double> mean(static_cast<std::size_t>(train.classes * size), 0.0);
  std::vector<double> seen(static_cast<std::size_t>(train.classes), 0.0);
  for (std::int64_t i = 0; i < train.count(); ++i) {
    const int k = train.labels[i];
    seen[k] += 1;
    for (std::int64_t j = 0; j < size; ++j) mean[k * size + j] += train.image(i)[j];
  }
  for (int k = 0; k < train.classes; ++k)
    for (std::int64_t j = 0; j < size; ++j) mean[k * size + j] /= std::max(1.0, seen[k]);
  std::int64_t right = 0;
  for (std::int64_t i = 0; i < test.count(); ++i) {
    int best = -1;
    double best_distance = std::numeric_limits<double>::max();
    for (int k = 0; k < train.classes; ++k) {
      double distance = 0;
      for (std::int64_t j = 0; j < size; ++j) {
        double d = test.image(i)[j] - mean[k * size + j];
        distance += d * d;
      }
      if (distance < best_distance) best_distance = distance, best = k;
    }
    right += best == test.labels[i];
  }
  return test.count() ? static_cast<double>(right) / static_cast<double>(test.count()) : 0.0;
}

}  // namespace ablate::datasets::testing
