// Markdown tables of result records (see report_tables.h).
#include "bench/experiments/report_tables.h"
#include "bench/run/text_format.h"

#include <cmath>
#include <cstdio>
#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <sstream>

namespace ablate::bench::experiments {

namespace {

double mib(double bytes) { return bytes / (1024.0 * 1024.0); }

// A record's field by dotted path, as text or as a number (run/results_reader.h).
std::string text(const nlohmann::json& r, const std::string& path, const std::string& fallback = "") {
  return run::text_of(run::field(r, path), fallback);
}
double num(const nlohmann::json& r, const std::string& path) { return run::number_of(run::field(r, path)); }

std::string point_of(const nlohmann::json& r) {
  const nlohmann::json& p = run::field(r, "sweep.point");
  std::string s;
  if (p.is_object())
    for (const auto& [k, v] : p.items()) s += (s.empty() ? "" : " ") + k + "=" + run::text_of(v);
  return s.empty() && !run::field(r, "sweep").is_null() ? "(defaults)" : s;
}

bool completed(const nlohmann::json& r) { return text(r, "status") == "completed"; }

std::string tta(const nlohmann::json& r) {
  const nlohmann::json& t = run::field(r, "metrics.time_to_accuracy");
  if (run::field(t, "target").is_null()) return "—";
  if (run::field(t, "train_time_s").is_null()) return "not reached (" + run::fmt("%g", num(t, "target")) + ")";
  return run::fmt("%.2f s", num(t, "train_time_s")) + " (" + run::fmt("%g", num(t, "target")) + ")";
}

struct Spread {
  std::vector<double> v;
  std::string text(const char* f) const {
    if (v.empty()) return "—";
    double mean = 0;
    for (double x : v) mean += x;
    mean /= static_cast<double>(v.size());
    if (v.size() == 1) return run::fmt(f, mean);
    double ss = 0;
    for (double x : v) ss += (x - mean) * (x - mean);
    return run::fmt(f, mean) + " ± " + run::fmt(f, std::sqrt(ss / static_cast<double>(v.size() - 1)));
  }
};

void runs_table(std::ostringstream& md, const run::ResultsFile& results) {
  md << "## Runs\n\n"
     << "| # | framework | strategy | backend | threads | batch | sweep point | status | train s | test s | accuracy | "
        "time to accuracy | peak RSS MiB | mean CPU |\n"
     << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  int i = 0;
  for (const auto& r : results.records) {
    const nlohmann::json& c = run::field(r, "config");
    const nlohmann::json& m = run::field(r, "metrics");
    md << "| " << ++i << " | " << text(c, "framework") << " | " << text(c, "strategy") << " | " << text(c, "backend")
       << " | " << text(c, "threads") << " | " << text(c, "batch") << " | " << point_of(r) << " | "
       << text(r, "status", "?") << " | " << run::fmt("%.2f", num(m, "train_time_s")) << " | "
       << run::fmt("%.2f", num(m, "test_time_s")) << " | " << run::fmt("%.4f", num(m, "accuracy")) << " | " << tta(r)
       << " | " << run::fmt("%.1f", mib(num(m, "peak_rss_bytes"))) << " | " << run::fmt("%.2f", num(m, "cpu_util"))
       << " |\n";
  }
  md << "\n";
}

void sweep_tables(std::ostringstream& md, const run::ResultsFile& results) {
  // label -> point -> the completed repeats' figures, in the order first seen
  std::map<std::string, std::vector<std::string>> order;
  std::map<std::string, std::map<std::string, std::array<Spread, 4>>> groups;
  for (const auto& r : results.records) {
    if (run::field(r, "sweep").is_null() || !completed(r)) continue;
    std::string label = text(r, "sweep.base"), point = point_of(r);  // the label and fixed flags
    auto& g = groups[label];
    if (!g.count(point)) order[label].push_back(point);
    auto& s = g[point];
    s[0].v.push_back(num(r, "metrics.train_time_s"));
    s[1].v.push_back(num(r, "metrics.accuracy"));
    s[2].v.push_back(mib(num(r, "metrics.peak_rss_bytes")));
    s[3].v.push_back(num(r, "metrics.cpu_util"));
  }
  if (groups.empty()) return;
  md << "## Sweeps (mean ± sample standard deviation over repeats)\n\n";
  for (const auto& [label, points] : order) {
    md << "### " << label << "\n\n| point | repeats | train s | accuracy | peak RSS MiB | mean CPU |\n|---|---|---|---|---|---|\n";
    for (const auto& p : points) {
      const auto& s = groups[label][p];
      md << "| " << p << " | " << s[0].v.size() << " | " << s[0].text("%.2f") << " | " << s[1].text("%.4f") << " | "
         << s[2].text("%.1f") << " | " << s[3].text("%.2f") << " |\n";
    }
    md << "\n";
  }
}

void correlations(std::ostringstream& md, const run::ResultsFile& results) {
  std::vector<double> batch, rss, cpu;
  for (const auto& r : results.records) {
    if (!completed(r)) continue;
    batch.push_back(num(r, "config.batch"));
    rss.push_back(num(r, "metrics.peak_rss_bytes"));
    cpu.push_back(num(r, "metrics.cpu_util"));
  }
  auto r_text = [](std::optional<double> r) {
    return r ? run::fmt("%+.3f", *r) : std::string("n/a (fewer than 3 runs or no variation)");
  };
  md << "## Resource use against batch size\n\n"
     << "Pearson correlation over the " << batch.size() << " completed runs (the study reported that CPU and memory "
     << "use move with batch size):\n\n"
     << "- batch size vs peak RSS: r = " << r_text(pearson(batch, rss)) << "\n"
     << "- batch size vs mean CPU utilisation: r = " << r_text(pearson(batch, cpu)) << "\n\n";
}

}  // namespace

std::optional<double> pearson(const std::vector<double>& x, const std::vector<double>& y) {
  const std::size_t n = std::min(x.size(), y.size());
  if (n < 3) return std::nullopt;
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < n; ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= static_cast<double>(n);
  my /= static_cast<double>(n);
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx <= 0 || syy <= 0) return std::nullopt;
  return sxy / std::sqrt(sxx * syy);
}

std::string report_markdown(const run::ResultsFile& results, const std::string& source) {
  std::ostringstream md;
  md << "# ablate report\n\nResults file: `" << source << "`: " << results.records.size() << " records";
  if (!results.damaged.empty()) {
    md << ", " << results.damaged.size() << " damaged lines skipped (";
    for (std::size_t i = 0; i < results.damaged.size(); ++i) md << (i ? ", " : "") << "line " << results.damaged[i].line;
    md << ")";
  }
  md << ".\n\nTimes are the records' printed timing (`config.timing`); accuracy is the final test accuracy (fraction).\n\n";
  runs_table(md, results);
  sweep_tables(md, results);
  correlations(md, results);
  return md.str();
}

}  // namespace ablate::bench::experiments
