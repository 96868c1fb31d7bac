// Weight initializers of the four frameworks, seeded and reproducible:
//   constant:V               every value V
//   gaussian:STD             N(0, STD^2)                      (Caffe "gaussian")
//   xavier                   U(-a, a), a = sqrt(3 / fan_in)   (Caffe's XavierFiller, FAN_IN)
//   uniform_fan_in           U(-1/sqrt(fan_in), 1/sqrt(fan_in))  (Torch's reset())
//   glorot                   U(-a, a), a = sqrt(6 / (fan_in + fan_out))  (Theano tutorials)
//   truncated_normal:STD     N(0, STD^2) redrawn beyond 2 STD (TensorFlow)
// fan_in = numel / shape[0]; fan_out = numel / shape[1] (Caffe's convention).
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include "kernels/tensor.h"

namespace ablate::models {

// Fills a host tensor (f32 or f64) by the rule named in `spec`; throws on an unknown rule.
// fan_out_override > 0 replaces fan_out (Theano's conv rule: filters * k^2 / pool^2).
void initialize(kernels::Tensor& t, const std::string& spec, std::mt19937_64& rng,
                double fan_out_override = 0);

}  // namespace ablate::models
