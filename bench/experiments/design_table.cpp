// Text, Markdown and JSON of a designed experiment's analysis (design_table.h).
#include "bench/experiments/design_table.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

#include "bench/run/text_format.h"

namespace ablate::bench::experiments {

namespace {

using Row = std::vector<std::string>;

std::string noise_mark(bool within) { return within ? "within noise" : ""; }

std::string share_text(double share) { return share < 0 ? "-" : run::fmt("%.0f%%", 100 * share); }
std::string p_text(double p) { return p < 0 ? "-" : p < 0.001 ? "<0.001" : run::fmt("%.3f", p); }

std::string unit(const MetricAnalysis& m) { return m.metric.unit.empty() ? "" : " " + m.metric.unit; }

// Column-aligned text: the first column left, the others right, the last (notes) left.
std::string aligned(const std::vector<Row>& rows) {
  std::vector<std::size_t> width;
  for (const Row& r : rows)
    for (std::size_t i = 0; i < r.size(); ++i) {
      if (width.size() <= i) width.push_back(0);
      width[i] = std::max(width[i], r[i].size());
    }
  std::ostringstream out;
  for (const Row& r : rows) {
    std::string line = " ";
    for (std::size_t i = 0; i < r.size(); ++i) {
      const std::string pad(width[i] - r[i].size(), ' ');
      const bool left = i == 0 || i + 1 == r.size();
      line += " " + (left ? r[i] + pad : pad + r[i]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  }
  return out.str();
}

std::string markdown(const std::vector<Row>& rows) {
  std::ostringstream out;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    out << "|";
    for (const auto& c : rows[i]) out << " " << c << " |";
    out << "\n";
    if (i == 0) {
      out << "|";
      for (std::size_t c = 0; c < rows[i].size(); ++c) out << (c == 0 || c + 1 == rows[i].size() ? "---|" : "---:|");
      out << "\n";
    }
  }
  return out.str();
}

std::vector<Row> effect_rows(const MetricAnalysis& m, const std::vector<EffectRow>& effects, const std::string& what) {
  std::vector<Row> rows = {{what, "levels", "effect" + unit(m), "95% interval", "share", "p", "note"}};
  for (const EffectRow& e : effects) {
    const std::string interval = e.interval.ok ? run::fmt("[%+.4g", e.interval.low) + run::fmt(", %+.4g]", e.interval.high) : "none";
    rows.push_back({e.name, e.detail, run::fmt("%+.4g", e.value), interval, share_text(e.share), p_text(e.p), noise_mark(e.within_noise)});
  }
  return rows;
}

std::vector<Row> shapley_rows(const MetricAnalysis& m) {
  std::vector<Row> rows = {{"factor", "from -> to", "Shapley" + unit(m), "95% interval", "std. error", "share of the change", "note"}};
  const double change = m.shapley_to - m.shapley_from;
  double sum = 0;
  for (const ShapleyRow& s : m.shapley) {
    sum += s.value;
    const std::string interval = s.interval.ok ? run::fmt("[%+.4g", s.interval.low) + run::fmt(", %+.4g]", s.interval.high) : "none";
    const bool shares = std::abs(change) > m.spread && change != 0;
    rows.push_back({s.factor, s.from + " -> " + s.to, run::fmt("%+.4g", s.value), interval,
                    s.standard_error < 0 ? "-" : run::fmt("%.3g", s.standard_error), shares ? run::fmt("%.0f%%", 100 * s.value / change) : "-",
                    noise_mark(s.within_noise)});
  }
  rows.push_back({"sum", "", run::fmt("%+.4g", sum), "", "", std::abs(change) > m.spread && change != 0 ? "100%" : "-",
                  std::abs(change) > m.spread ? "" : "the whole change is within noise"});
  return rows;
}

// "1 re-run, 1 KEPT": disturbed runs measured again, and disturbed runs that count (no re-run left).
std::string disturbed_text(int rerun, int kept) {
  std::string s = rerun ? std::to_string(rerun) + " re-run" : "";
  if (kept) s += (s.empty() ? "" : ", ") + std::to_string(kept) + " KEPT";
  return s;
}

std::vector<Row> cell_rows(const DesignReport& r, std::size_t metric) {
  std::vector<Row> rows = {
      {"cell", "mean " + r.metrics[metric].metric.title + unit(r.metrics[metric]), "runs", "failed", "disturbed"}};
  const Cells& cells = r.samples->values[metric];
  for (std::size_t c = 0; c < r.plan->cells.size(); ++c) {
    double mean = 0;
    for (double x : cells[c]) mean += x / static_cast<double>(cells[c].size());
    rows.push_back({cell_text(r.plan->cells[c]), cells[c].empty() ? "-" : run::fmt("%.4g", mean),
                    std::to_string(r.samples->done[c]), r.samples->failed[c] ? std::to_string(r.samples->failed[c]) + " FAILED" : "",
                    disturbed_text(r.samples->rerun[c], r.samples->disturbed[c])});
  }
  return rows;
}

std::string heading(const DesignReport& r, const MetricAnalysis& m) {
  int runs = 0, failed = 0, rerun = 0, kept = 0;
  for (int d : r.samples->done) runs += d;
  for (int f : r.samples->failed) failed += f;
  for (int d : r.samples->rerun) rerun += d;
  for (int d : r.samples->disturbed) kept += d;
  return m.metric.title + (m.metric.unit.empty() ? "" : " (" + m.metric.unit + ")") + ": " + m.design + ", " +
         std::to_string(r.spec->repeats) + " repeat(s) a cell; " + std::to_string(runs) + " runs, " + std::to_string(failed) +
         " failed; " + std::to_string(rerun) + " disturbed and run again, " + std::to_string(kept) +
         " disturbed and kept (DISTURBED: others used more than --disturbed-above cores meanwhile); run-to-run spread "
         "(pooled sd) " + run::fmt("%.4g", m.spread) + unit(m);
}

std::string shapley_heading(const MetricAnalysis& m) {
  return "Shapley values of the change from every first level (" + run::fmt("%.4g", m.shapley_from) + unit(m) +
         ") to every second (" + run::fmt("%.4g", m.shapley_to) + unit(m) + "): " +
         run::fmt("%+.4g", m.shapley_to - m.shapley_from) + unit(m);
}

std::string failure_line(const FailedRun& f) {
  return f.cell + " repeat " + std::to_string(f.repeat + 1) + (f.retried_ok ? " (a later run succeeded)" : "") + ": " +
         f.error.substr(0, f.error.find('\n'));
}

std::string explanation(const MetricAnalysis& m) {
  std::string s = "Effect: the mean at a factor's second level minus at its first (an interaction: half the difference of one "
                  "factor's effect between the other's levels); with more than two levels, the largest level mean minus the "
                  "smallest. 95% interval: percentile bootstrap over the repeats. Share: ANOVA's part of the variation, p its "
                  "F test. Within noise: the interval covers 0, the size is below the run-to-run spread, or p > 0.05.";
  if (m.has_shapley)
    s += " Shapley: each factor's contribution to the change from every first level to every second, averaged over every "
         "order of switching (" + std::string(m.orders ? std::to_string(m.orders) + " sampled orders" : "exact over all subsets") +
         "); the values sum to the change.";
  return s;
}

}  // namespace

std::string value_with_interval(double value, const Interval& interval, const char* format) {
  return run::fmt(format, value) + " [" +
         (interval.ok ? run::fmt(format, interval.low) + ", " + run::fmt(format, interval.high) : std::string("no interval")) + "]";
}

std::string design_text(const DesignReport& r) {
  std::ostringstream out;
  for (std::size_t i = 0; i < r.metrics.size(); ++i) {
    const MetricAnalysis& m = r.metrics[i];
    out << "\n" << heading(r, m) << "\n";
    if (!m.missing.empty()) {
      out << "  no effects estimated: no successful run of " << run::join(m.missing, "; ") << "\n";
    } else {
      if (!m.main.empty()) out << "main effects\n" << aligned(effect_rows(m, m.main, "factor"));
      if (!m.interactions.empty()) out << "interactions\n" << aligned(effect_rows(m, m.interactions, "pair"));
      if (m.has_shapley) out << shapley_heading(m) << "\n" << aligned(shapley_rows(m));
    }
    out << "cells\n" << aligned(cell_rows(r, i));
  }
  int failed_now = 0;
  for (const FailedRun& f : r.samples->failures) failed_now += !f.retried_ok;
  if (!r.samples->failures.empty()) {
    out << "\nfailed runs (" << failed_now << " not yet run again successfully):\n";
    for (const FailedRun& f : r.samples->failures) out << "  " << failure_line(f) << "\n";
  }
  if (!r.metrics.empty()) out << explanation(r.metrics[0]) << "\n";
  return out.str();
}

std::string design_markdown(const DesignReport& r) {
  std::ostringstream out;
  out << "# ablate ablate\n\nBase flags:";
  for (const auto& [k, v] : r.spec->base) out << " `--" << k << " " << v << "`";
  out << "\n\nFactors:";
  for (const auto& f : r.spec->factors) out << " `" << f.key << "` (" << run::join(f.values, ", ") << ")";
  out << "; seed " << r.spec->seed << ".\n";
  for (std::size_t i = 0; i < r.metrics.size(); ++i) {
    const MetricAnalysis& m = r.metrics[i];
    out << "\n## " << heading(r, m) << "\n\n";
    if (!m.missing.empty()) {
      out << "No effects estimated: no successful run of " << run::join(m.missing, "; ") << ".\n\n";
    } else {
      if (!m.main.empty()) out << "Main effects\n\n" << markdown(effect_rows(m, m.main, "factor")) << "\n";
      if (!m.interactions.empty()) out << "Interactions\n\n" << markdown(effect_rows(m, m.interactions, "pair")) << "\n";
      if (m.has_shapley) out << shapley_heading(m) << "\n\n" << markdown(shapley_rows(m)) << "\n";
    }
    out << "Cells\n\n" << markdown(cell_rows(r, i)) << "\n";
  }
  if (!r.samples->failures.empty()) {
    out << "## Failed runs\n\n";
    for (const FailedRun& f : r.samples->failures) out << "- " << failure_line(f) << "\n";
    out << "\n";
  }
  if (!r.metrics.empty()) out << explanation(r.metrics[0]) << "\n";
  return out.str();
}

nlohmann::ordered_json design_json(const DesignReport& r) {
  using Json = nlohmann::ordered_json;
  auto interval = [](const Interval& i) { return i.ok ? Json::array({i.low, i.high}) : Json(nullptr); };
  auto effects = [&](const std::vector<EffectRow>& rows) {
    Json out = Json::array();
    for (const EffectRow& e : rows)
      out.push_back({{"name", e.name}, {"detail", e.detail}, {"value", e.value}, {"interval", interval(e.interval)},
                     {"within_noise", e.within_noise}, {"share", e.share}, {"p", e.p}});
    return out;
  };
  Json j;
  Json factors = Json::array();
  for (const auto& f : r.spec->factors) factors.push_back({{"key", f.key}, {"levels", f.values}});
  j["factors"] = factors;
  j["repeats"] = r.spec->repeats;
  j["key"] = design_key(*r.spec);
  Json metrics = Json::array();
  for (const MetricAnalysis& m : r.metrics) {
    Json mj = {{"metric", m.metric.name}, {"title", m.metric.title}, {"unit", m.metric.unit}, {"design", m.design},
               {"spread", m.spread}, {"missing", m.missing}, {"main", effects(m.main)}, {"interactions", effects(m.interactions)}};
    if (m.has_shapley) {
      Json s = Json::array();
      for (const ShapleyRow& row : m.shapley)
        s.push_back({{"factor", row.factor}, {"from", row.from}, {"to", row.to}, {"value", row.value},
                     {"interval", interval(row.interval)}, {"standard_error", row.standard_error}, {"within_noise", row.within_noise}});
      mj["shapley"] = {{"from", m.shapley_from}, {"to", m.shapley_to}, {"orders", m.orders}, {"values", s}};
    }
    metrics.push_back(mj);
  }
  j["metrics"] = metrics;
  Json failures = Json::array();
  for (const FailedRun& f : r.samples->failures)
    failures.push_back({{"cell", f.cell}, {"repeat", f.repeat}, {"error", f.error}, {"retried_ok", f.retried_ok}});
  j["failed_runs"] = failures;
  int rerun = 0, kept = 0;
  for (int d : r.samples->rerun) rerun += d;
  for (int d : r.samples->disturbed) kept += d;
  j["disturbed_runs"] = {{"run_again", rerun}, {"kept", kept}};
  return j;
}

}  // namespace ablate::bench::experiments
