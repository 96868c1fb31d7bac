// Per-batch preprocessing: turns u8 images into the float input a framework's script fed
// its network. This issue holds the scaling rules (Caffe's 1/256, TF's and Theano's 1/255);
// mean subtraction, standardisation, crops and colour transforms join here.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "datasets/image_set.h"
#include "kernels/tensor.h"

namespace ablate::datasets {

struct Transform {
  std::string name;  // as recorded in the result: "scale:0.00390625"
  // Writes images idx[0..n) of `set` into out [n, C', H', W'] (f32 or f64).
  std::function<void(const ImageSet& set, const std::int64_t* idx, std::int64_t n, kernels::Tensor& out)> apply;
  // Output C, H, W for input C, H, W (most transforms keep them).
  std::function<void(int& c, int& h, int& w)> output_shape = [](int&, int&, int&) {};
};

// x = pixel * factor
Transform scale_transform(double factor);
// Parses "scale:F" (more rules later); throws naming the unknown rule.
Transform parse_transform(const std::string& spec);

}  // namespace ablate::datasets
