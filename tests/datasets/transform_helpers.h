// Helpers of the transform tests: small hand-made image sets and a one-call apply that
// returns the output values with their shape.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "datasets/transforms.h"

namespace ablate::datasets::testing {

// A set of c x h x w images from `pixels` (count = pixels.size() / (c*h*w)), label i % 10.
inline ImageSet make_set(const std::string& name, int c, int h, int w, const std::vector<std::uint8_t>& pixels) {
  ImageSet set = empty_image_set(name, c, h, w, 10);
  set.pixels = pixels;
  const std::size_t count = pixels.size() / (static_cast<std::size_t>(c) * h * w);
  for (std::size_t i = 0; i < count; ++i) set.labels.push_back(static_cast<std::int32_t>(i % 10));
  return set;
}

// `count` images of c x h x w whose pixel j of image i is (seed * 37 + i * 11 + j * 7 + j * j) % 256.
inline ImageSet pattern_set(const std::string& name, int count, int c, int h, int w, int seed = 1) {
  std::vector<std::uint8_t> pixels;
  const int size = c * h * w;
  for (int i = 0; i < count; ++i)
    for (int j = 0; j < size; ++j) pixels.push_back(static_cast<std::uint8_t>((seed * 37 + i * 11 + j * 7 + j * j) % 256));
  return make_set(name, c, h, w, pixels);
}

struct Applied {
  int c = 0, h = 0, w = 0;
  std::vector<double> values;  // n x c x h x w
  double at(int image, int ch, int y, int x) const {
    return values[((static_cast<std::size_t>(image) * c + ch) * h + y) * w + x];
  }
  std::vector<double> image(int i) const {
    const std::size_t size = static_cast<std::size_t>(c) * h * w;
    return std::vector<double>(values.begin() + i * size, values.begin() + (i + 1) * size);
  }
};

inline Applied apply_to(const Transform& t, const ImageSet& set, const std::vector<std::int64_t>& idx,
                        std::uint64_t draw = 0, kernels::DType dtype = kernels::DType::f64) {
  Applied a;
  a.c = set.channels, a.h = set.height, a.w = set.width;
  t.output_shape(a.c, a.h, a.w);
  const auto n = static_cast<std::int64_t>(idx.size());
  kernels::Tensor out({n, a.c, a.h, a.w}, dtype);
  t.apply(set, idx.data(), n, draw, out);
  for (std::int64_t i = 0; i < out.numel(); ++i) a.values.push_back(out.at(i));
  return a;
}

}  // namespace ablate::datasets::testing
