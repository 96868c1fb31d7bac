// Invariants of an ImageSet that a reader accepted (datasets/image_set.h): the pixel buffer
// holds count() whole images and every label is a class.
#pragma once

#include "datasets/image_set.h"
#include "fuzz/clean_rejection.h"

namespace ablate::fuzz {

inline void check_image_set(const datasets::ImageSet& set) {
  fuzz_check(set.channels > 0 && set.height > 0 && set.width > 0, "positive image geometry");
  fuzz_check(set.classes > 0, "positive class count");
  fuzz_check(set.pixels.size() == static_cast<std::size_t>(set.count() * set.image_size()),
             "pixels hold count() whole images");
  for (auto label : set.labels) fuzz_check(label >= 0 && label < set.classes, "label in [0, classes)");
}

}  // namespace ablate::fuzz
