// Weight initializers of the four frameworks, seeded and reproducible:
//   constant:V               every value V
//   gaussian:STD             N(0, STD^2)                      (Caffe "gaussian")
//   xavier                   U(-a, a), a = sqrt(3 / fan_in)   (Caffe's XavierFiller, FAN_IN)
//   msra                     N(0, 2 / fan_in)                 (Caffe's MSRAFiller, FAN_IN; He et al. 2015)
//   uniform_fan_in           U(-1/sqrt(fan_in), 1/sqrt(fan_in))  (Torch's reset())
//   glorot                   U(-a, a), a = sqrt(6 / (fan_in + fan_out))  (Theano tutorials)
//   truncated_normal:STD     N(0, STD^2) redrawn beyond 2 STD (TensorFlow)
// fan_in = numel / shape[0]; fan_out = numel / shape[1], or numel for a 1-D tensor
// (Caffe's Blob num() and channels() convention).
// Values are drawn from the 64-bit generator directly, so they do not depend on the standard
// library: u = (draw >> 11) * 2^-53 in [0, 1); U(-a, a) = a * (2u - 1); normals by Box-Muller,
// both values of each pair used in order; truncated_normal redraws |z| > 2.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/tensor.h"

namespace ablate::models {

// Fills a host tensor (f32 or f64) by the rule named in `spec`; throws on an unknown rule.
// fan_out_override > 0 replaces fan_out (Theano's conv rule: filters * k^2 / pool^2).
// fan_in_override > 0 replaces fan_in (a bias takes its layer's weight fans, as Torch's reset()).
void initialize(kernels::Tensor& t, const std::string& spec, std::mt19937_64& rng,
                double fan_out_override = 0, double fan_in_override = 0);

// Throws std::invalid_argument naming the spec and listing the known rules unless `spec` is
// one of the rules above with a valid argument ("gaussian:0.01", not "gaussian" or "gauss:1").
void validate_initializer(const std::string& spec);
// The rules as written above: "constant:V", "gaussian:STD", "xavier", ...
std::vector<std::string> initializer_forms();

}  // namespace ablate::models
