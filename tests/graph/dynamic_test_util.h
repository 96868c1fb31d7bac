// Helpers of the dynamic-strategy tests: a tape Context over a backend with its own caching
// allocator, seeded leaf Variables, and a central-difference gradient check through the tape.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "graph/dynamic/autograd.h"
#include "graph/dynamic/caching_allocator.h"
#include "graph/dynamic/context.h"
#include "graph/dynamic/variable.h"
#include "graph/engine_gradient_check.h"
#include "kernels/registry.h"

namespace ablate::graph::dynamic::testing {

// A backend, an allocator and a Context, destroyed after every Variable a test makes.
struct Tape {
  explicit Tape(const std::string& backend_name = "reference")
      : backend(kernels::make_backend(backend_name)),
        allocator(backend->allocator()),
        context(*backend, allocator, allocator) {}
  // A leaf of `shape` uniform in [-1, 1) from `seed`.
  Variable leaf(const kernels::Shape& shape, std::uint64_t seed, bool requires_grad = true,
                kernels::DType dtype = kernels::DType::f64) {
    kernels::Tensor t(shape, dtype, &allocator);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (std::int64_t i = 0; i < t.numel(); ++i) t.set(i, u(rng));
    return Variable(context, t, requires_grad);
  }

  std::unique_ptr<kernels::Backend> backend;
  CachingAllocator allocator;
  Context context;
};

// Runs backward of f() once, then compares the gradient of every leaf in `leaves` with
// (f(v + e) - f(v - e)) / 2e element by element. f must return a scalar Variable.
inline void check_gradients(Context& context, const std::function<Variable()>& f, std::vector<Variable> leaves,
                            const std::vector<std::string>& names) {
  for (Variable& v : leaves) v.zero_grad();
  backward(f());
  const double eps = 1e-6;
  auto value_of = [&] {
    NoGradGuard no_grad(context);
    return f().value().at(0);
  };
  for (std::size_t k = 0; k < leaves.size(); ++k) {
    kernels::Tensor data = leaves[k].value();  // shares the leaf's storage
    const kernels::Tensor& analytic = leaves[k].grad();
    ASSERT_EQ(analytic.shape(), data.shape()) << names[k];
    int bad = 0;
    for (std::int64_t i = 0; i < data.numel(); ++i) {
      const double numeric = central_difference(value_of, data, i, eps);
      const double a = analytic.at(i);
      const double tolerance = 1e-7 + 1e-5 * std::max(std::abs(a), std::abs(numeric));
      if (std::abs(a - numeric) > tolerance && ++bad <= 5)
        ADD_FAILURE() << names[k] << "[" << i << "]: backward " << a << ", finite difference " << numeric;
    }
    EXPECT_EQ(bad, 0) << names[k] << ": " << bad << " of " << data.numel() << " elements differ";
  }
}

}  // namespace ablate::graph::dynamic::testing
