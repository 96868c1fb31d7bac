// Held-out splits of an ImageSet.
#include "datasets/image_set.h"

#include <stdexcept>

namespace ablate::datasets {

ImageSet empty_image_set(const std::string& name, int channels, int height, int width, int classes) {
  ImageSet set;
  set.name = name;
  set.channels = channels;
  set.height = height;
  set.width = width;
  set.classes = classes;
  return set;
}

ImageSet split_tail(ImageSet& set, std::int64_t count, const std::string& name) {
  if (count < 0 || count > set.count())
    throw std::invalid_argument("cannot hold out " + std::to_string(count) + " images of " + set.name +
                                " (" + std::to_string(set.count()) + " images)");
  ImageSet tail = empty_image_set(name, set.channels, set.height, set.width, set.classes);
  std::int64_t keep = set.count() - count;
  tail.pixels.assign(set.pixels.begin() + keep * set.image_size(), set.pixels.end());
  tail.labels.assign(set.labels.begin() + keep, set.labels.end());
  set.pixels.resize(static_cast<std::size_t>(keep * set.image_size()));
  set.labels.resize(static_cast<std::size_t>(keep));
  return tail;
}

}  // namespace ablate::datasets
