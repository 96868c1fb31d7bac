// Shared pieces of the transform stages: shape text, running moments, number text.
#include "datasets/transform_stage.h"

#include <charconv>
#include <cmath>

namespace ablate::datasets {

std::string ImageShape::str() const { return std::to_string(c) + "x" + std::to_string(h) + "x" + std::to_string(w); }

void Moments::add(const double* values, std::int64_t n) {
  if (n <= 0) return;
  double sum = 0;
  for (std::int64_t i = 0; i < n; ++i) sum += values[i];
  const double block_mean = sum / static_cast<double>(n);
  double block_m2 = 0;
  for (std::int64_t i = 0; i < n; ++i) block_m2 += (values[i] - block_mean) * (values[i] - block_mean);
  // Chan, Golub and LeVeque: merge (n_, mean_, m2_) with (n, block_mean, block_m2).
  const double na = static_cast<double>(n_), nb = static_cast<double>(n), total = na + nb;
  const double delta = block_mean - mean_;
  mean_ += delta * nb / total;
  m2_ += block_m2 + delta * delta * na * nb / total;
  n_ += n;
}

double Moments::sample_std() const { return n_ < 2 ? 0.0 : std::sqrt(m2_ / static_cast<double>(n_ - 1)); }

std::string shortest_decimal(double value) {
  char buf[64];
  auto result = std::to_chars(buf, buf + sizeof buf, value);
  return std::string(buf, result.ptr);
}

}  // namespace ablate::datasets
