// Percentile bootstrap over repeats, run-to-run spread, the within-noise rule (bootstrap_interval.h).
#include "bench/experiments/bootstrap_interval.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

namespace ablate::bench::experiments {

namespace {

double percentile(std::vector<double>& sorted_values, double q) {
  const double at = q * static_cast<double>(sorted_values.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(at));
  const auto hi = std::min(lo + 1, sorted_values.size() - 1);
  return sorted_values[lo] + (at - static_cast<double>(lo)) * (sorted_values[hi] - sorted_values[lo]);
}

}  // namespace

std::vector<double> cell_means(const Cells& cells) {
  std::vector<double> m;
  for (const auto& c : cells) {
    if (c.empty()) throw std::invalid_argument("a cell without a successful repeat has no mean");
    double s = 0;
    for (double x : c) s += x;
    m.push_back(s / static_cast<double>(c.size()));
  }
  return m;
}

std::vector<Interval> bootstrap_intervals(const Cells& cells, const Statistic& statistic, const BootstrapOptions& options) {
  const std::vector<double> point = statistic(cell_means(cells));
  std::vector<Interval> out(point.size());
  bool varies = false;
  for (const auto& c : cells) varies = varies || c.size() > 1;
  if (!varies || options.replicates < 2) return out;
  std::mt19937_64 rng(options.seed);
  std::vector<std::vector<double>> replicates(point.size());
  std::vector<double> means(cells.size());
  for (int b = 0; b < options.replicates; ++b) {
    for (std::size_t c = 0; c < cells.size(); ++c) {
      std::uniform_int_distribution<std::size_t> pick(0, cells[c].size() - 1);
      double s = 0;
      for (std::size_t r = 0; r < cells[c].size(); ++r) s += cells[c][pick(rng)];
      means[c] = s / static_cast<double>(cells[c].size());
    }
    const std::vector<double> v = statistic(means);
    for (std::size_t i = 0; i < v.size() && i < point.size(); ++i)
      if (std::isfinite(v[i])) replicates[i].push_back(v[i]);
  }
  const double tail = (1 - options.level) / 2;
  for (std::size_t i = 0; i < point.size(); ++i) {
    auto& r = replicates[i];
    if (r.size() < 2) continue;
    std::sort(r.begin(), r.end());
    out[i] = {percentile(r, tail), percentile(r, 1 - tail), true};
  }
  return out;
}

std::vector<Interval> bootstrap_intervals_ordered(const Cells& cells, const Statistic& statistic,
                                                  const std::vector<std::size_t>& order, const BootstrapOptions& options) {
  Cells ordered;
  for (std::size_t i : order) ordered.push_back(cells.at(i));
  if (ordered.size() != cells.size()) throw std::invalid_argument("a bootstrap order that is not a permutation of the cells");
  return bootstrap_intervals(
      ordered,
      [&](const std::vector<double>& ordered_means) {
        std::vector<double> m(ordered_means.size());
        for (std::size_t i = 0; i < order.size(); ++i) m[order[i]] = ordered_means[i];
        return statistic(m);
      },
      options);
}

double run_to_run_spread(const Cells& cells) {
  double ss = 0;
  std::size_t df = 0;
  for (const auto& c : cells) {
    if (c.size() < 2) continue;
    double mean = 0;
    for (double x : c) mean += x;
    mean /= static_cast<double>(c.size());
    for (double x : c) ss += (x - mean) * (x - mean);
    df += c.size() - 1;
  }
  return df ? std::sqrt(ss / static_cast<double>(df)) : 0;
}

bool within_noise(double value, const Interval& interval, double spread) {
  return !interval.ok || interval.covers(0) || std::abs(value) < spread;
}

}  // namespace ablate::bench::experiments
