// Effects, interactions and Shapley values of a designed experiment, with intervals (design_analysis.h).
#include "bench/experiments/design_analysis.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "bench/experiments/factorial_anova.h"
#include "bench/experiments/shapley_values.h"
#include "bench/experiments/two_level_effects.h"
#include "bench/run/results_reader.h"
#include "bench/run/text_format.h"

namespace ablate::bench::experiments {

namespace {

bool succeeded(const nlohmann::json& r) {
  const std::string s = run::text_of(run::field(r, "status"));
  return s == "completed" || s == "diverged";
}

bool design_flag(const nlohmann::json& r, const char* name) {
  const nlohmann::json& flag = run::field(run::field(r, "design"), name);
  return flag.is_boolean() && flag.get<bool>();
}

std::string pair_name(const DesignSpec& spec, int a, int b) {
  return spec.factors[static_cast<std::size_t>(a)].key + " x " + spec.factors[static_cast<std::size_t>(b)].key;
}

// The factors of an effect mask by key: "backend x strategy".
std::string mask_name(const DesignSpec& spec, std::uint64_t mask) {
  std::string s;
  for (std::size_t j = 0; j < spec.factors.size(); ++j)
    if (mask >> j & 1) s += (s.empty() ? "" : " x ") + spec.factors[j].key;
  return s;
}

std::string design_title(const DesignSpec& spec, const DesignPlan& plan) {
  const std::size_t k = spec.factors.size();
  if (plan.kind == DesignKind::shapley_orders)
    return std::to_string(plan.cells.size()) + " subsets of " + std::to_string(k) + " factors visited by " +
           std::to_string(plan.orders.size()) + " sampled orders";
  if (plan.kind == DesignKind::two_level)
    return plan.two_level.fraction == 0
               ? "2^" + std::to_string(k) + " full factorial"
               : "2^(" + std::to_string(k) + "-" + std::to_string(plan.two_level.fraction) + ") fraction, resolution " +
                     resolution_name(plan.two_level) + " (" + run::join(plan.two_level.generators, ", ") + ")";
  std::vector<std::string> sizes;
  for (const auto& f : spec.factors) sizes.push_back(std::to_string(f.values.size()));
  return run::join(sizes, " x ") + " full factorial";
}

// Fills interval and noise of rows whose figures are `figures[offset + i]`.
void settle(std::vector<EffectRow>& rows, const std::vector<Interval>& intervals, std::size_t offset, double spread) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    rows[i].interval = intervals[offset + i];
    rows[i].within_noise = within_noise(rows[i].value, rows[i].interval, spread) || (rows[i].p >= 0 && rows[i].p > 0.05);
  }
}

}  // namespace

std::vector<double> plan_shapley(const DesignPlan& plan, const std::vector<double>& means) {
  const int k = static_cast<int>(plan.canonical.size());
  const std::map<std::uint64_t, std::size_t> cell_of_mask = cells_by_mask(plan);
  const auto v = [&](std::uint64_t mask) { return means[cell_of_mask.at(mask)]; };
  std::vector<double> canonical;
  if (plan.kind == DesignKind::shapley_orders) {
    canonical = shapley_sampled(k, plan.orders, v).value;
  } else {
    std::vector<double> table(std::size_t{1} << k);
    for (std::uint64_t m = 0; m < table.size(); ++m) table[m] = v(m);
    canonical = shapley_exact(table, k);
  }
  std::vector<double> given(static_cast<std::size_t>(k));  // back to the order given
  for (std::size_t i = 0; i < canonical.size(); ++i) given[static_cast<std::size_t>(plan.canonical[i])] = canonical[i];
  return given;
}

std::vector<double> plan_shapley_errors(const DesignPlan& plan, const std::vector<double>& means) {
  const int k = static_cast<int>(plan.canonical.size());
  std::vector<double> se(static_cast<std::size_t>(k), -1);
  if (plan.kind != DesignKind::shapley_orders) return se;
  const std::map<std::uint64_t, std::size_t> cell_of_mask = cells_by_mask(plan);
  const ShapleyEstimate e = shapley_sampled(k, plan.orders, [&](std::uint64_t mask) { return means[cell_of_mask.at(mask)]; });
  for (std::size_t i = 0; i < e.standard_error.size(); ++i) se[static_cast<std::size_t>(plan.canonical[i])] = e.standard_error[i];
  return se;
}

std::vector<DesignMetric> design_metrics(const std::string& list) {
  static const std::vector<DesignMetric> known = {
      {"time", "training time", "s", "metrics.train_time_s", 1},
      {"images", "training images/s", "images/s", "metrics.images_per_s", 1},
      {"memory", "peak RSS", "MiB", "metrics.peak_rss_bytes", 1.0 / (1024 * 1024)},
      {"accuracy", "final test accuracy", "", "metrics.accuracy", 1},
  };
  std::vector<DesignMetric> out;
  for (const std::string& name : run::split_list(list)) {
    const auto it = std::find_if(known.begin(), known.end(), [&](const DesignMetric& m) { return m.name == name; });
    if (it == known.end())
      throw std::invalid_argument("--metric " + list + ": unknown metric '" + name + "' (expected time, images, memory or accuracy)");
    out.push_back(*it);
  }
  if (out.empty()) throw std::invalid_argument("--metric '" + list + "': expected time, images, memory or accuracy");
  return out;
}

DesignSamples collect_samples(const DesignSpec& spec, const DesignPlan& plan, const std::vector<DesignMetric>& metrics,
                              const std::vector<nlohmann::json>& records) {
  const std::string key = design_key(spec);
  std::map<std::string, std::size_t> cell_of;
  for (std::size_t c = 0; c < plan.cells.size(); ++c) cell_of[cell_text(plan.cells[c])] = c;
  DesignSamples s;
  s.values.assign(metrics.size(), Cells(plan.cells.size()));
  s.failed.assign(plan.cells.size(), 0);
  s.done.assign(plan.cells.size(), 0);
  s.rerun.assign(plan.cells.size(), 0);
  s.disturbed.assign(plan.cells.size(), 0);
  std::map<std::pair<std::size_t, int>, bool> seen;  // (cell, repeat) -> succeeded
  std::vector<std::pair<std::size_t, FailedRun>> failures;
  for (const auto& r : records) {
    const nlohmann::json& d = run::field(r, "design");
    if (!d.is_object() || run::text_of(run::field(d, "key")) != key) continue;
    std::map<std::string, std::string> values;
    if (d["cell"].is_object())
      for (const auto& [k, v] : d["cell"].items()) values[k] = run::text_of(v);
    const auto at = cell_of.find(point_text(values));
    if (at == cell_of.end()) continue;
    const int repeat = static_cast<int>(run::number_of(run::field(d, "repeat"), -1));
    if (!succeeded(r)) {
      failures.push_back({at->second, {at->first, repeat, run::text_of(run::field(r, "error"), "(no error recorded)")}});
      seen.emplace(std::make_pair(at->second, repeat), false);
      continue;
    }
    if (design_flag(r, "superseded")) {  // disturbed, and measured again: left out
      ++s.rerun[at->second];
      continue;
    }
    bool& ok = seen[{at->second, repeat}];
    if (ok) continue;  // a second record of the same run: the first counts
    ok = true;
    s.disturbed[at->second] += design_flag(r, "disturbed");
    for (std::size_t m = 0; m < metrics.size(); ++m)
      s.values[m][at->second].push_back(run::number_of(run::field(r, metrics[m].field), 0) * metrics[m].scale);
  }
  for (const auto& [cell_repeat, ok] : seen) (ok ? s.done : s.failed)[cell_repeat.first] += 1;
  for (auto& [cell, f] : failures) {
    f.retried_ok = seen[{cell, f.repeat}];
    s.failures.push_back(f);
  }
  return s;
}

MetricAnalysis analyse_metric(const DesignSpec& spec, const DesignPlan& plan, const DesignMetric& metric, const Cells& cells,
                              const BootstrapOptions& options) {
  MetricAnalysis a;
  a.metric = metric;
  a.design = design_title(spec, plan);
  for (std::size_t c = 0; c < cells.size(); ++c)
    if (cells[c].empty()) a.missing.push_back(cell_text(plan.cells[c]));
  if (!a.missing.empty()) return a;
  a.spread = run_to_run_spread(cells);
  const int k = static_cast<int>(spec.factors.size());

  const bool shapley = spec.shapley;
  const std::map<std::uint64_t, std::size_t> cell_of_mask = shapley ? cells_by_mask(plan) : std::map<std::uint64_t, std::size_t>{};
  const std::uint64_t all = k >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << k) - 1;
  auto shapley_values = [&](const std::vector<double>& means) { return plan_shapley(plan, means); };

  std::vector<std::uint64_t> two_level_terms;
  FullFactorial multi;
  if (plan.kind == DesignKind::two_level) {
    AnovaTable t;
    const bool full = plan.two_level.fraction == 0;
    if (full) {
      FullFactorial f{std::vector<int>(static_cast<std::size_t>(k), 2), {}};
      for (const DesignCell& c : plan.cells) f.cells.push_back(c.level);
      t = anova(f, cells);
    }
    for (const EstimableTerm& term : estimable_terms(plan.two_level)) {
      EffectRow row;
      row.name = mask_name(spec, term.effect);
      const int bits = std::popcount(term.effect);
      if (bits == 1) {
        const auto& f = spec.factors[static_cast<std::size_t>(std::countr_zero(term.effect))];
        row.detail = f.values[0] + " -> " + f.values[1];
      }
      for (std::uint64_t alias : term.aliased_with) row.detail += (row.detail.empty() ? "aliased with " : ", ") + mask_name(spec, alias);
      if (full) {
        const int a = std::countr_zero(term.effect);
        const AnovaTerm* at = nullptr;
        if (bits == 1) at = &t.main[static_cast<std::size_t>(a)];
        else {
          const int b = 63 - std::countl_zero(term.effect);
          std::size_t index = 0;  // pairs in order (0,1), (0,2), ..., (1,2), ...
          for (int i = 0; i < a; ++i) index += static_cast<std::size_t>(k - 1 - i);
          at = &t.pairs[index + static_cast<std::size_t>(b - a - 1)];
        }
        row.share = at->eta_squared;
        row.p = at->p;
      }
      (bits == 1 ? a.main : a.interactions).push_back(row);
      two_level_terms.push_back(term.effect);
    }
  } else if (plan.kind == DesignKind::multi_level) {
    std::vector<int> levels;
    for (const auto& f : spec.factors) levels.push_back(static_cast<int>(f.values.size()));
    multi = FullFactorial{levels, {}};
    for (const DesignCell& c : plan.cells) multi.cells.push_back(c.level);
    const AnovaTable t = anova(multi, cells);
    for (int f = 0; f < k; ++f) {
      EffectRow row;
      row.name = spec.factors[static_cast<std::size_t>(f)].key;
      row.share = t.main[static_cast<std::size_t>(f)].eta_squared;
      row.p = t.main[static_cast<std::size_t>(f)].p;
      a.main.push_back(row);
    }
    for (const AnovaTerm& term : t.pairs) {
      EffectRow row;
      row.name = pair_name(spec, term.factors[0], term.factors[1]);
      row.share = term.eta_squared;
      row.p = term.p;
      a.interactions.push_back(row);
    }
  }

  // Every figure from the cell means: main effects, interactions, Shapley values.
  const Statistic statistic = [&](const std::vector<double>& means) {
    std::vector<double> out;
    if (plan.kind == DesignKind::two_level) {
      for (std::uint64_t e : two_level_terms) out.push_back(contrast(plan.two_level, means, e));
    } else if (plan.kind == DesignKind::multi_level) {
      std::vector<std::vector<double>> lm;
      for (int f = 0; f < k; ++f) {
        lm.push_back(level_means(multi, means, f));
        const auto [lo, hi] = std::minmax_element(lm.back().begin(), lm.back().end());
        out.push_back(lm.back().size() == 2 ? lm.back()[1] - lm.back()[0] : *hi - *lo);
      }
      double grand = 0;
      for (double m : means) grand += m / static_cast<double>(means.size());
      for (int x = 0; x < k; ++x)
        for (int y = x + 1; y < k; ++y) {
          std::map<std::pair<int, int>, std::pair<double, int>> pair;
          for (std::size_t c = 0; c < means.size(); ++c) {
            auto& [sum, n] = pair[{multi.cells[c][static_cast<std::size_t>(x)], multi.cells[c][static_cast<std::size_t>(y)]}];
            sum += means[c];
            ++n;
          }
          double largest = 0;
          for (const auto& [ij, sn] : pair)
            largest = std::max(largest, std::abs(sn.first / sn.second - lm[static_cast<std::size_t>(x)][static_cast<std::size_t>(ij.first)] -
                                                 lm[static_cast<std::size_t>(y)][static_cast<std::size_t>(ij.second)] + grand));
          out.push_back(largest);
        }
    }
    if (shapley)
      for (double v : shapley_values(means)) out.push_back(v);
    return out;
  };
  const std::vector<double> means = cell_means(cells);
  const std::vector<double> point = statistic(means);
  // The bootstrap draws over the cells sorted by their text, so that the order in which the
  // factors were named changes no interval either.
  std::vector<std::size_t> sorted(cells.size());
  for (std::size_t c = 0; c < sorted.size(); ++c) sorted[c] = c;
  std::sort(sorted.begin(), sorted.end(),
            [&](std::size_t x, std::size_t y) { return cell_text(plan.cells[x]) < cell_text(plan.cells[y]); });
  const std::vector<Interval> intervals = bootstrap_intervals_ordered(cells, statistic, sorted, options);
  std::size_t at = 0;
  for (auto& row : a.main) row.value = point[at++];
  for (auto& row : a.interactions) row.value = point[at++];
  if (plan.kind == DesignKind::multi_level) {
    for (std::size_t f = 0; f < a.main.size(); ++f) {
      const std::vector<double> lm = level_means(multi, means, static_cast<int>(f));
      const auto& names = spec.factors[f].values;
      if (lm.size() == 2) {
        a.main[f].detail = names[0] + " -> " + names[1];
        continue;
      }
      const auto lo = std::min_element(lm.begin(), lm.end()) - lm.begin(), hi = std::max_element(lm.begin(), lm.end()) - lm.begin();
      a.main[f].detail = "highest " + names[static_cast<std::size_t>(hi)] + " - lowest " + names[static_cast<std::size_t>(lo)];
    }
    for (auto& row : a.interactions) row.detail = "largest |interaction| of a level pair";
  }
  settle(a.main, intervals, 0, a.spread);
  settle(a.interactions, intervals, a.main.size(), a.spread);
  if (shapley) {
    a.has_shapley = true;
    a.shapley_from = means[cell_of_mask.at(0)];
    a.shapley_to = means[cell_of_mask.at(all)];
    a.orders = plan.kind == DesignKind::shapley_orders ? static_cast<int>(plan.orders.size()) : 0;
    const std::vector<double> se = plan_shapley_errors(plan, means);
    for (int f = 0; f < k; ++f) {
      const auto& factor = spec.factors[static_cast<std::size_t>(f)];
      ShapleyRow row{factor.key, factor.values[0], factor.values[1], point[at], intervals[at], se[static_cast<std::size_t>(f)]};
      row.within_noise = within_noise(row.value, row.interval, a.spread);
      a.shapley.push_back(row);
      ++at;
    }
  }
  return a;
}

}  // namespace ablate::bench::experiments
