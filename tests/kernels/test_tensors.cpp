// Seeded random tensors, the tolerant comparison and the error capture of the kernel tests
// (test_tensors.h).
#include "test_tensors.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace ablate::kernels::test {

Tensor random_tensor(const Shape& shape, DType dtype, Rng& rng, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  Tensor values(shape, DType::f64);
  for (std::int64_t i = 0; i < values.numel(); ++i) values.data<double>()[i] = u(rng);
  if (dtype == DType::f64) return values;
  Tensor t(shape, dtype);
  t.copy_from(values);
  return t;
}

Tensor random_labels(std::int64_t n, std::int64_t classes, Rng& rng) {
  std::uniform_int_distribution<std::int32_t> u(0, static_cast<std::int32_t>(classes - 1));
  Tensor t({n}, DType::i32);
  for (std::int64_t i = 0; i < n; ++i) t.data<std::int32_t>()[i] = u(rng);
  return t;
}

int random_int(Rng& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

double random_real(Rng& rng, double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); }

Tensor as_f64(const Tensor& t) {
  Tensor out(t.shape(), DType::f64);
  out.copy_from(t);
  return out;
}

double tolerance(DType dtype, double reduction) {
  double base = dtype == DType::f64 ? 1e-11 : 1e-5;
  return base * std::sqrt(std::max(1.0, reduction));
}

::testing::AssertionResult all_near(const Tensor& actual, const Tensor& expected, double bound) {
  if (actual.numel() != expected.numel())
    return ::testing::AssertionFailure() << "sizes differ: " << actual.describe() << " vs " << expected.describe();
  double worst = -1;
  std::int64_t worst_i = -1;
  for (std::int64_t i = 0; i < actual.numel(); ++i) {
    double a = actual.at(i), e = expected.at(i);
    double err = std::abs(a - e) / std::max(1.0, std::abs(e));
    if (std::isnan(err)) err = INFINITY;
    if (err > worst) {
      worst = err;
      worst_i = i;
    }
  }
  if (worst <= bound) return ::testing::AssertionSuccess();
  std::ostringstream out;
  out.precision(10);
  out << "element " << worst_i << " of " << expected.describe() << ": got " << actual.at(worst_i) << ", expected "
      << expected.at(worst_i) << ", error " << worst << " > bound " << bound;
  return ::testing::AssertionFailure() << out.str();
}

std::string invalid_argument_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace ablate::kernels::test
