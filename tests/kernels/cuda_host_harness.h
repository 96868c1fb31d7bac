// The harness of the host run of the CUDA backend's own kernels (cuda_host_*_test.cpp): host
// buffers fenced by canaries, so that a kernel that writes past either end of its data (or
// before it) breaks a canary, and one that reads past it reads a value far from the data that
// spoils its result; and the settings every kernel runs in (f32 and f64, the grid walked
// forwards and backwards, as the device promises no order of blocks or threads).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/backend.h"
#include "kernels/cuda/cuda_host_launch.h"
#include "kernels/reference/reference_backend.h"
#include "kernels/tensor.h"
#include "test_tensors.h"

namespace ablate::kernels::test {

using cuda::HostOrder;
using cuda::run_block_sums_on_host;
using cuda::run_grid_on_host;

// Elements of canary on each side of a guarded buffer: a bound mistake is off by a few
// elements (or a row); a read further out is ASan's to see (scripts/sanitize.sh).
constexpr std::int64_t kCanaryElements = 67;

// Buffer k's canary: for floats a value of its own, 777 + k/8, far from the data (within a few
// units) yet not so large that adding data to it leaves it unchanged, so that a canary
// overwritten by a copy or a sum of another buffer's canaries, or by its own plus or times
// something, does not look intact (a NaN would, as arithmetic keeps a NaN's payload; 1e30
// would absorb a small addend); a byte pattern of its own for other types.
template <class T> T canary_value(int k) {
  if constexpr (std::is_floating_point_v<T>) {
    return T(777.0 + 0.125 * (k % 997));
  } else {
    T v;
    std::memset(&v, 0xa0 + k % 16, sizeof v);
    return v;
  }
}
inline int next_canary() {
  static int count = 0;
  return ++count;
}

// n elements of T between two canary zones; the elements start as canaries too (an element
// the kernel should write and does not then fails the comparison).
template <class T> class Guarded {
 public:
  explicit Guarded(std::int64_t n)
      : n_(n), canary_(canary_value<T>(next_canary())), data_(static_cast<std::size_t>(n + 2 * kCanaryElements), canary_) {}
  // A copy of t's values (t of dtype T).
  explicit Guarded(const Tensor& t) : Guarded(t.numel()) {
    if (n_) std::memcpy(ptr(), t.data<T>(), static_cast<std::size_t>(n_) * sizeof(T));
  }
  T* ptr() { return data_.data() + kCanaryElements; }
  const T* ptr() const { return data_.data() + kCanaryElements; }
  std::int64_t size() const { return n_; }
  // The values as a tensor of `shape` (numel n).
  Tensor tensor(const Shape& shape) const {
    Tensor t(shape, dtype_of<T>());
    if (n_) std::memcpy(t.data<T>(), ptr(), static_cast<std::size_t>(n_) * sizeof(T));
    return t;
  }
  // Whether every canary is as it was, naming the first one broken.
  ::testing::AssertionResult canaries_intact() const {
    for (std::int64_t k = 0; k < kCanaryElements; ++k) {
      const std::int64_t before = -1 - k, after = n_ + k;
      if (std::memcmp(&data_[static_cast<std::size_t>(kCanaryElements + before)], &canary_, sizeof(T)) != 0)
        return ::testing::AssertionFailure() << "written at element " << before << " of " << n_;
      if (std::memcmp(&data_[static_cast<std::size_t>(kCanaryElements + after)], &canary_, sizeof(T)) != 0)
        return ::testing::AssertionFailure() << "written at element " << after << " of " << n_;
    }
    return ::testing::AssertionSuccess();
  }

 private:
  std::int64_t n_;
  T canary_;
  std::vector<T> data_;
};

// Checks a kernel's output: canaries intact, values within tolerance(dtype, reduction) of the
// reference backend's (bit for bit when exact).
template <class T>
void expect_output(const char* name, const Guarded<T>& out, const Tensor& expected, double reduction = 1,
                   bool exact = false) {
  EXPECT_TRUE(out.canaries_intact()) << name;
  const Tensor actual = out.tensor(expected.shape());
  const DType dtype = std::is_same_v<T, float> ? DType::f32 : DType::f64;
  EXPECT_TRUE(all_near(actual, expected, exact ? 0.0 : tolerance(dtype, reduction))) << name;
}

// A random tensor of T's dtype.
template <class T> Tensor random_of(const Shape& shape, Rng& rng, double lo = -1.0, double hi = 1.0) {
  return random_tensor(shape, dtype_of<T>(), rng, lo, hi);
}

// Checks the partial results of a kernel (per block, per row) as the backend finishes them on
// the host: their sum in order, divided by `divisor`, within tolerance(precision, reduction) of
// the reference's scalar; and their canaries.
inline void expect_total(const char* name, const Guarded<double>& parts, double divisor, double expected,
                         DType precision, double reduction) {
  EXPECT_TRUE(parts.canaries_intact()) << name;
  Tensor total({1}, DType::f64), want({1}, DType::f64);
  for (std::int64_t i = 0; i < parts.size(); ++i) total.data<double>()[0] += parts.ptr()[i];
  total.data<double>()[0] /= divisor;
  want.data<double>()[0] = expected;
  EXPECT_TRUE(all_near(total, want, tolerance(precision, reduction))) << name;
}

// Runs f(T{}, order, reference, rng) for T = float and double and both grid orders, each
// under a trace, with the reference backend and an Rng seeded with `seed` afresh each time.
template <class F> void for_each_setting(std::uint64_t seed, F&& f) {
  const std::unique_ptr<Backend> reference = make_reference_backend();
  for (HostOrder order : {HostOrder::forward, HostOrder::reverse}) {
    SCOPED_TRACE(order == HostOrder::forward ? "grid walked forwards" : "grid walked backwards");
    {
      SCOPED_TRACE("f32");
      Rng rng(seed);
      f(float{}, order, *reference, rng);
    }
    {
      SCOPED_TRACE("f64");
      Rng rng(seed);
      f(double{}, order, *reference, rng);
    }
  }
}

// Element counts around the block size (kThreads = 256): a partial tail block, exact blocks.
inline const std::vector<std::int64_t>& bound_sizes() {
  static const std::vector<std::int64_t> sizes{1, 7, 255, 256, 257, 1000, 3 * 256 + 17};
  return sizes;
}

}  // namespace ablate::kernels::test
