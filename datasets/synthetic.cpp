// Synthetic labelled images: class k's prototype is a coarse random pattern (cells of about
// a seventh of the image side, so it survives convolution and pooling), and a sample is its
// class's prototype plus noise, clamped to 0..255. The noise per pixel is the sum of four
// uniform draws in 0..63 minus 126 (mean 0, sd ~37), against prototype values spread over
// 0..255, so the classes are easy to separate and a model learns them in a few hundred steps.
// Prototypes come from stream 0 of the seed and samples from stream 1: the same seed gives
// the same set on every platform.
#include "datasets/synthetic.h"

#include <algorithm>
#include <stdexcept>

#include "datasets/seeded_random.h"

namespace ablate::datasets {

namespace {

void check_positive(const std::string& name, const char* field, std::int64_t value) {
  if (value <= 0)
    throw std::invalid_argument(name + ": " + field + " " + std::to_string(value) + " is not valid; expected > 0");
}

}  // namespace

ImageSet make_synthetic(std::int64_t count, int channels, int height, int width, int classes, std::uint64_t seed,
                        const std::string& name) {
  if (count < 0)
    throw std::invalid_argument(name + ": count " + std::to_string(count) + " is not valid; expected >= 0");
  check_positive(name, "channels", channels);
  check_positive(name, "height", height);
  check_positive(name, "width", width);
  check_positive(name, "classes", classes);

  ImageSet set = empty_image_set(name, channels, height, width, classes);
  const std::int64_t size = set.image_size();

  // Prototypes [classes, C, H, W]: one random value per cell x cell block.
  const int cell = std::max(1, std::min(height, width) / 7);
  const int cells_y = (height + cell - 1) / cell, cells_x = (width + cell - 1) / cell;
  std::mt19937_64 proto_rng = seeded_generator(seed, 0);
  std::vector<std::uint8_t> prototypes(static_cast<std::size_t>(classes * size));
  std::vector<std::uint8_t> grid(static_cast<std::size_t>(cells_y * cells_x));
  for (std::int64_t plane = 0; plane < std::int64_t{classes} * channels; ++plane) {
    for (auto& g : grid) g = static_cast<std::uint8_t>(uniform_below(proto_rng, 256));
    std::uint8_t* out = prototypes.data() + plane * height * width;
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) out[y * width + x] = grid[(y / cell) * cells_x + x / cell];
  }

  std::mt19937_64 rng = seeded_generator(seed, 1);
  set.labels.resize(static_cast<std::size_t>(count));
  set.pixels.resize(static_cast<std::size_t>(count * size));
  for (std::int64_t i = 0; i < count; ++i) {
    const int label = static_cast<int>(uniform_below(rng, static_cast<std::uint64_t>(classes)));
    set.labels[static_cast<std::size_t>(i)] = label;
    const std::uint8_t* proto = prototypes.data() + label * size;
    std::uint8_t* out = set.pixels.data() + i * size;
    std::uint64_t bits = 0;
    for (std::int64_t j = 0; j < size; ++j) {
      if (j % 2 == 0) bits = rng();  // 64 bits: four 6-bit draws for each of two pixels
      int noise = -126;
      for (int k = 0; k < 4; ++k, bits >>= 8) noise += static_cast<int>(bits & 0xFF) >> 2;
      out[j] = static_cast<std::uint8_t>(std::clamp(int{proto[j]} + noise, 0, 255));
    }
  }
  return set;
}

}  // namespace ablate::datasets
