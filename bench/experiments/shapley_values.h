// Shapley values of a change from configuration A to configuration B over k factors (each factor
// either at its A value or at its B value): v(S) is the measured figure (training time, say)
// with the factors of S at B and the others at A, S a bit mask (bit i: factor i). Factor i's
// value is its marginal contribution averaged over every order in which the factors could be
// switched:
//   phi_i = sum_{S not containing i} |S|! (k - |S| - 1)! / k! * ( v(S + i) - v(S) ),
// so the values sum to v(all) - v(none), the whole change, by construction; a factor that
// changes nothing in any context gets 0; and no factor's value depends on where it stands in a
// list (the greedy one-at-a-time walk credits an interaction to whichever factor comes later).
//
// Exact over all 2^k subsets up to kExactShapleyFactors factors; beyond, over m random orders
// (permutations): each order's marginal contributions sum to the whole change, so their means
// do too, and each value carries its standard error (sd / sqrt(m)). The orders are drawn over
// the factors' indices with a seeded generator: callers that want results independent of the
// order of a factor list index the factors canonically (by name) first.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace ablate::bench::experiments {

inline constexpr int kExactShapleyFactors = 8;

// `v` holds v(S) for every mask S < 2^k; k <= 20.
std::vector<double> shapley_exact(const std::vector<double>& v, int k);

// m orders of k factors, seeded.
std::vector<std::vector<int>> sample_orders(int k, int m, std::uint64_t seed);
// The subsets an order visits: {}, {o0}, {o0, o1}, ..., all (k + 1 masks).
std::vector<std::uint64_t> order_prefixes(const std::vector<int>& order);

struct ShapleyEstimate {
  std::vector<double> value, standard_error;
};
// Over the given orders, `v` called for each prefix mask (it may look measurements up).
ShapleyEstimate shapley_sampled(int k, const std::vector<std::vector<int>>& orders,
                                const std::function<double(std::uint64_t)>& v);

}  // namespace ablate::bench::experiments
