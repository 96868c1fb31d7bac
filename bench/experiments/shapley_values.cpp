// Exact and sampled Shapley values (shapley_values.h).
#include "bench/experiments/shapley_values.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>

namespace ablate::bench::experiments {

std::vector<double> shapley_exact(const std::vector<double>& v, int k) {
  if (k < 0 || k > 20) throw std::invalid_argument("exact Shapley values over " + std::to_string(k) + " factors");
  const std::uint64_t n = std::uint64_t{1} << k;
  if (v.size() != n)
    throw std::invalid_argument("exact Shapley values need all " + std::to_string(n) + " subsets, got " +
                                std::to_string(v.size()));
  // weight[s] = s! (k - s - 1)! / k!
  std::vector<double> weight(static_cast<std::size_t>(std::max(k, 1)));
  for (int s = 0; s < k; ++s) weight[static_cast<std::size_t>(s)] = std::exp(std::lgamma(s + 1.0) + std::lgamma(k - s + 0.0) - std::lgamma(k + 1.0));
  std::vector<double> phi(static_cast<std::size_t>(k), 0);
  for (std::uint64_t S = 0; S < n; ++S)
    for (int i = 0; i < k; ++i)
      if (!(S >> i & 1))
        phi[static_cast<std::size_t>(i)] += weight[static_cast<std::size_t>(std::popcount(S))] * (v[S | (std::uint64_t{1} << i)] - v[S]);
  return phi;
}

std::vector<std::vector<int>> sample_orders(int k, int m, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<int>> orders;
  for (int r = 0; r < m; ++r) {
    std::vector<int> o(static_cast<std::size_t>(k));
    std::iota(o.begin(), o.end(), 0);
    std::shuffle(o.begin(), o.end(), rng);
    orders.push_back(std::move(o));
  }
  return orders;
}

std::vector<std::uint64_t> order_prefixes(const std::vector<int>& order) {
  std::vector<std::uint64_t> out = {0};
  std::uint64_t S = 0;
  for (int i : order) out.push_back(S |= std::uint64_t{1} << i);
  return out;
}

ShapleyEstimate shapley_sampled(int k, const std::vector<std::vector<int>>& orders,
                                const std::function<double(std::uint64_t)>& v) {
  const std::size_t ku = static_cast<std::size_t>(k);
  std::vector<double> sum(ku, 0), sum2(ku, 0);
  for (const auto& order : orders) {
    std::uint64_t S = 0;
    double before = v(S);
    for (int i : order) {
      S |= std::uint64_t{1} << i;
      const double after = v(S);
      sum[static_cast<std::size_t>(i)] += after - before;
      sum2[static_cast<std::size_t>(i)] += (after - before) * (after - before);
      before = after;
    }
  }
  ShapleyEstimate e;
  const double m = static_cast<double>(orders.size());
  for (std::size_t i = 0; i < ku; ++i) {
    const double mean = m > 0 ? sum[i] / m : 0;
    e.value.push_back(mean);
    const double var = m > 1 ? std::max(0.0, (sum2[i] - m * mean * mean) / (m - 1)) : 0;
    e.standard_error.push_back(m > 0 ? std::sqrt(var / m) : 0);
  }
  return e;
}

}  // namespace ablate::bench::experiments
