// ImageSet: a labelled set of 8-bit images held as read from disk (N x C x H x W bytes,
// channel-planar), so that each framework's preprocessing can be applied per batch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ablate::datasets {

struct ImageSet {
  std::string name;  // "fashion-mnist/train", for messages
  int channels = 0, height = 0, width = 0, classes = 0;
  std::vector<std::uint8_t> pixels;  // size() == count() * channels * height * width
  std::vector<std::int32_t> labels;  // in [0, classes)

  std::int64_t count() const { return static_cast<std::int64_t>(labels.size()); }
  std::int64_t image_size() const { return static_cast<std::int64_t>(channels) * height * width; }
  const std::uint8_t* image(std::int64_t i) const { return pixels.data() + i * image_size(); }
};

// An empty set (no images yet) of the given geometry.
ImageSet empty_image_set(const std::string& name, int channels, int height, int width, int classes);

struct TrainTest {
  ImageSet train, test;
};

// The last `count` images of `set` as a new set, removed from `set` (a held-out split).
ImageSet split_tail(ImageSet& set, std::int64_t count, const std::string& name);

}  // namespace ablate::datasets
