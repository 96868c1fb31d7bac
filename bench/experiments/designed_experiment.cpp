// Cells, run order and identities of a designed experiment (designed_experiment.h).
#include "bench/experiments/designed_experiment.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <set>
#include <stdexcept>

#include "bench/experiments/factorial_anova.h"
#include "bench/experiments/shapley_values.h"
#include "bench/run/text_format.h"

namespace ablate::bench::experiments {

namespace {

DesignCell make_cell(const DesignSpec& spec, std::vector<int> level) {
  DesignCell c{std::move(level), {}};
  for (std::size_t f = 0; f < spec.factors.size(); ++f)
    c.values[spec.factors[f].key] = spec.factors[f].values[static_cast<std::size_t>(c.level[f])];
  return c;
}

void check(const DesignSpec& spec) {
  if (spec.factors.empty())
    throw std::invalid_argument("ablate ablate: expected at least one --factor KEY=L1,L2,... (e.g. --factor backend=openblas,onednn)");
  if (spec.repeats < 1) throw std::invalid_argument("--repeats " + std::to_string(spec.repeats) + ": expected at least 1");
  if (spec.orders < 1) throw std::invalid_argument("--orders " + std::to_string(spec.orders) + ": expected at least 1");
  SweepSpec as_sweep;
  as_sweep.base = spec.base;
  as_sweep.factors = spec.factors;
  check_spec(as_sweep);  // a factor named twice, or also a base flag
  for (const SweepFactor& f : spec.factors) {
    if (f.values.size() < 2)
      throw std::invalid_argument("--factor " + f.key + "=" + f.values[0] + ": expected at least two levels (KEY=L1,L2,...)");
    if ((spec.fraction > 0 || spec.shapley) && f.values.size() != 2)
      throw std::invalid_argument("--factor " + f.key + ": " + std::to_string(f.values.size()) + " levels, but " +
                                  (spec.shapley ? "--shapley" : "--fraction") + " takes two-level factors only");
  }
  if (spec.shapley && spec.fraction > 0)
    throw std::invalid_argument("--shapley with --fraction: Shapley values need every subset of the factors (or sampled orders), not a fraction");
}

}  // namespace

DesignPlan plan_design(const DesignSpec& spec) {
  check(spec);
  DesignPlan plan;
  const int k = static_cast<int>(spec.factors.size());
  plan.canonical.resize(static_cast<std::size_t>(k));
  std::iota(plan.canonical.begin(), plan.canonical.end(), 0);
  std::sort(plan.canonical.begin(), plan.canonical.end(),
            [&](int a, int b) { return spec.factors[static_cast<std::size_t>(a)].key < spec.factors[static_cast<std::size_t>(b)].key; });
  bool two_level = true;
  for (const SweepFactor& f : spec.factors) two_level = two_level && f.values.size() == 2;
  if (spec.shapley && k > kExactShapleyFactors) {
    plan.kind = DesignKind::shapley_orders;
    plan.orders = sample_orders(k, spec.orders, spec.seed);
    std::set<std::uint64_t> masks;
    for (const auto& o : plan.orders)
      for (std::uint64_t m : order_prefixes(o)) masks.insert(m);
    for (std::uint64_t m : masks) plan.cells.push_back(make_cell(spec, levels_of_mask(plan, m)));
    return plan;
  }
  if (two_level) {
    plan.kind = DesignKind::two_level;
    plan.two_level = fractional_factorial(k, spec.fraction);
    for (const auto& run : plan.two_level.runs) {
      std::vector<int> level;
      for (int s : run) level.push_back(s > 0 ? 1 : 0);
      plan.cells.push_back(make_cell(spec, level));
    }
    return plan;
  }
  if (spec.fraction > 0) throw std::invalid_argument("--fraction takes two-level factors only");
  plan.kind = DesignKind::multi_level;
  std::vector<int> levels;
  for (const SweepFactor& f : spec.factors) levels.push_back(static_cast<int>(f.values.size()));
  for (const auto& level : full_factorial_levels(levels).cells) plan.cells.push_back(make_cell(spec, level));
  return plan;
}

run::Flags cell_args(const DesignSpec& spec, const DesignCell& cell) {
  SweepSpec as_sweep;
  as_sweep.base = spec.base;
  return point_args(as_sweep, SweepPoint{cell.values, 0});
}

std::vector<PlannedDesignRun> design_run_order(const DesignSpec& spec, const DesignPlan& plan) {
  std::mt19937_64 rng(spec.seed);
  std::vector<PlannedDesignRun> runs;
  for (int r = 0; r < spec.repeats; ++r) {
    std::vector<std::size_t> pass(plan.cells.size());
    std::iota(pass.begin(), pass.end(), 0);
    std::shuffle(pass.begin(), pass.end(), rng);
    for (std::size_t c : pass) runs.push_back({c, r});
  }
  return runs;
}

std::string design_key(const DesignSpec& spec) {
  std::string key = "ablate";
  for (const auto& [k, v] : spec.base) key += " " + k + "=" + v;
  std::vector<SweepFactor> factors = spec.factors;
  if (spec.fraction == 0)  // a fraction's letters follow the order named; a full design does not
    std::sort(factors.begin(), factors.end(), [](const SweepFactor& a, const SweepFactor& b) { return a.key < b.key; });
  for (const SweepFactor& f : factors) key += " factor:" + f.key + "=" + run::join(f.values, ",");
  if (spec.fraction > 0) key += " fraction=" + std::to_string(spec.fraction);
  if (spec.shapley && spec.factors.size() > static_cast<std::size_t>(kExactShapleyFactors))
    key += " shapley-orders=" + std::to_string(spec.orders) + " seed=" + std::to_string(spec.seed);
  if (spec.max_iterations > 0) key += " max_iterations=" + std::to_string(spec.max_iterations);
  return key;
}

std::string cell_text(const DesignCell& cell) { return point_text(cell.values); }

std::string design_run_identity(const std::string& key, const std::string& cell, int repeat) {
  return key + " | " + cell + " | " + std::to_string(repeat);
}

std::vector<int> levels_of_mask(const DesignPlan& plan, std::uint64_t mask) {
  std::vector<int> level(plan.canonical.size(), 0);
  for (std::size_t i = 0; i < plan.canonical.size(); ++i)
    if (mask >> i & 1) level[static_cast<std::size_t>(plan.canonical[i])] = 1;
  return level;
}

std::uint64_t mask_of_levels(const DesignPlan& plan, const std::vector<int>& level) {
  std::uint64_t mask = 0;
  for (std::size_t i = 0; i < plan.canonical.size(); ++i)
    if (level[static_cast<std::size_t>(plan.canonical[i])] == 1) mask |= std::uint64_t{1} << i;
  return mask;
}

std::map<std::uint64_t, std::size_t> cells_by_mask(const DesignPlan& plan) {
  std::map<std::uint64_t, std::size_t> out;
  for (std::size_t c = 0; c < plan.cells.size(); ++c) out[mask_of_levels(plan, plan.cells[c].level)] = c;
  return out;
}

}  // namespace ablate::bench::experiments
