// Helpers of the kernel tests: seeded random tensors, the tolerant comparison that the
// conformance and gradient tests share, and the message of an expected error.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <random>
#include <string>

#include "kernels/tensor.h"

namespace ablate::kernels::test {

using Rng = std::mt19937_64;

// Uniform in [lo, hi), drawn in double and converted to `dtype` (so f32 and f64 tensors made
// from one seed hold the same values up to rounding).
Tensor random_tensor(const Shape& shape, DType dtype, Rng& rng, double lo = -1.0, double hi = 1.0);
// i32 [n] with values in [0, classes).
Tensor random_labels(std::int64_t n, std::int64_t classes, Rng& rng);
int random_int(Rng& rng, int lo, int hi);  // inclusive
double random_real(Rng& rng, double lo, double hi);
// The same values as f64 (a copy).
Tensor as_f64(const Tensor& t);

// Tolerance of a value that results from a sum of `reduction` terms (1 for a pointwise op):
// base(dtype) * sqrt(max(1, reduction)), base 1e-5 for f32 and 1e-11 for f64.
double tolerance(DType dtype, double reduction);

// Passes when max_i |actual_i - expected_i| / max(1, |expected_i|) <= bound; on failure names
// the worst element, both values, the error and the bound.
::testing::AssertionResult all_near(const Tensor& actual, const Tensor& expected, double bound);

// The message of the std::invalid_argument that f throws, or "(no error)".
std::string invalid_argument_of(const std::function<void()>& f);

}  // namespace ablate::kernels::test
