// The final accuracies over seeds (seed_summary.h).
#include "bench/experiments/seed_summary.h"

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "bench/run/flags.h"
#include "bench/run/text_format.h"

namespace ablate::bench::experiments {

namespace {

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

// The line of (framework, side), made on first sight.
SeedLine& line_for(std::vector<SeedLine>& lines, const std::string& framework, const std::string& side, bool real,
                   std::size_t seeds) {
  for (SeedLine& l : lines)
    if (l.framework == framework && l.side == side) return l;
  lines.push_back({framework, side, real, std::vector<double>(seeds, kNone), std::vector<double>(seeds, kNone)});
  return lines.back();
}

// The mean of the values that are not gaps (NaN); NaN if all are.
double mean_of(const std::vector<double>& values) {
  double sum = 0;
  int n = 0;
  for (double v : values)
    if (!std::isnan(v)) sum += v, ++n;
  return n ? sum / n : kNone;
}

std::string cell(double v, const char* format) { return std::isnan(v) ? "-" : run::fmt(format, v); }

std::string left(const std::string& s, std::size_t width) { return s.size() < width ? s + std::string(width - s.size(), ' ') : s; }
std::string right(const std::string& s, std::size_t width) { return s.size() < width ? std::string(width - s.size(), ' ') + s : s; }

}  // namespace

std::vector<std::int64_t> parse_seeds(const std::string& list) {
  std::vector<std::int64_t> seeds;
  for (const std::string& s : run::split_list(list, true)) {
    const std::int64_t seed = run::parse_int(s, "--seeds " + list);
    if (seed < 0) throw std::invalid_argument("--seeds " + list + ": seed " + s + " is negative");
    for (std::int64_t earlier : seeds)
      if (earlier == seed) throw std::invalid_argument("--seeds " + list + ": seed " + s + " is named twice");
    seeds.push_back(seed);
  }
  if (seeds.empty()) throw std::invalid_argument("--seeds '" + list + "': expected a list of seeds, e.g. 1,2,3");
  return seeds;
}

double SeedLine::mean_accuracy() const { return mean_of(accuracy); }
double SeedLine::mean_points() const { return mean_of(points); }

double SeedLine::largest_points() const {
  double largest = kNone;
  for (double p : points)
    if (!std::isnan(p) && (std::isnan(largest) || std::fabs(p) > std::fabs(largest))) largest = p;
  return largest;
}

std::vector<SeedLine> seed_lines(const std::vector<SeedOutcome>& outcomes) {
  std::vector<SeedLine> lines;
  const std::size_t n = outcomes.size();
  for (std::size_t s = 0; s < n; ++s) {
    for (const CompareRow& r : outcomes[s].rows)
      line_for(lines, r.framework, "ablate", false, n).accuracy[s] = r.measured() ? r.accuracy : kNone;
    for (const RealComparison& c : outcomes[s].real)
      for (const RealPathMeasure& m : c.paths) {
        SeedLine& l = line_for(lines, c.framework, m.title, true, n);
        if (!m.full.completed()) continue;
        l.accuracy[s] = m.full.accuracy;
        if (c.ablate_measured) l.points[s] = 100 * (c.ablate.accuracy - m.full.accuracy);
      }
  }
  return lines;
}

std::string seeds_text(const std::vector<SeedOutcome>& outcomes) {
  std::ostringstream out;
  out << "\nfinal test accuracy over seeds";
  for (const SeedOutcome& o : outcomes) out << (&o == &outcomes.front() ? " " : ", ") << o.seed;
  out << " (points: ablate's accuracy minus the real one's):\n";
  out << left("framework", 11) << " " << left("side", 28);
  for (const SeedOutcome& o : outcomes) out << " " << right("seed " + std::to_string(o.seed), 9);
  out << " " << right("mean", 9) << " " << right("largest", 9) << "\n";
  for (const SeedLine& l : seed_lines(outcomes)) {
    out << left(l.framework, 11) << " " << left(l.side, 28);
    for (double a : l.accuracy) out << " " << right(cell(a, "%.4f"), 9);
    out << " " << right(cell(l.mean_accuracy(), "%.4f"), 9) << "\n";
    if (!l.real) continue;
    out << left("", 11) << " " << left("  points", 28);
    for (double p : l.points) out << " " << right(cell(p, "%+.2f"), 9);
    out << " " << right(cell(l.mean_points(), "%+.2f"), 9) << " " << right(cell(l.largest_points(), "%+.2f"), 9) << "\n";
  }
  return out.str();
}

std::string seeds_markdown(const std::vector<SeedOutcome>& outcomes) {
  std::ostringstream out;
  out << "## Final test accuracy over seeds\n\n"
      << "Each seed's comparison in `seed-N/report.md`; points: ablate's accuracy minus the real one's.\n\n"
      << "| framework | side |";
  for (const SeedOutcome& o : outcomes) out << " seed " << o.seed << " |";
  out << " mean | largest points |\n|---|---|";
  for (std::size_t i = 0; i < outcomes.size(); ++i) out << "---:|";
  out << "---:|---:|\n";
  for (const SeedLine& l : seed_lines(outcomes)) {
    out << "| " << l.framework << " | " << l.side << " |";
    for (double a : l.accuracy) out << " " << cell(a, "%.4f") << " |";
    out << " " << cell(l.mean_accuracy(), "%.4f") << " | |\n";
    if (!l.real) continue;
    out << "| | points |";
    for (double p : l.points) out << " " << cell(p, "%+.2f") << " |";
    out << " " << cell(l.mean_points(), "%+.2f") << " | " << cell(l.largest_points(), "%+.2f") << " |\n";
  }
  return out.str();
}

}  // namespace ablate::bench::experiments
