// Text and Markdown of the comparison with the real frameworks (real_table.h).
#include "bench/experiments/real_table.h"

#include <sstream>

#include "bench/experiments/window_rates.h"
#include "bench/run/text_format.h"

namespace ablate::bench::experiments {

namespace {

// The cells of one side, in the order of kHead; "" where a side has no such figure.
using RowCells = std::vector<std::string>;
const RowCells kHead = {"framework", "side", "accuracy", "points", "curve: largest relative", "images/s", "ratio",
                     "peak RSS", "mean CPU"};

RowCells ablate_cells(const RealComparison& c) {
  const AblateMeasure& a = c.ablate;
  return {c.framework, "ablate " + a.backend + " " + a.precision + " " + std::to_string(a.threads) + " thr",
          run::fmt("%.4f", a.accuracy), "", "", run::fmt("%.0f", a.images_per_s), "", run::mib_text(a.peak_rss_bytes),
          run::fmt("%.2f", c.ablate_cpu_util)};
}

std::string curve_cell(const RealComparison& c, const RealPathMeasure& m) {
  if (c.curve_steps <= 0 || (m.curve.steps == 0 && m.curve.problem.empty())) return "";  // no curve run tried
  if (!c.ablate_curve_problem.empty()) return "none (see notes)";
  if (!m.curve.measured()) return "none (see notes)";
  return curve_text(m.curve);
}

RatioSpread speed_spread(const RealComparison& c, const PeerMeasure& p) {
  return ratio_spread(c.ablate.images_per_s, p.images_per_s, c.ablate.window_images_per_s, p.window_images_per_s);
}

RowCells real_cells(const RealComparison& c, const RealPathMeasure& m) {
  const PeerMeasure& p = m.full;
  if (!p.completed()) return {c.framework, m.title, p.state, "", curve_cell(c, m), "", "", "", ""};
  return {c.framework,
          m.title,
          run::fmt("%.4f", p.accuracy),
          run::fmt("%+.2f", 100 * (c.ablate.accuracy - p.accuracy)),
          curve_cell(c, m),
          run::fmt("%.0f", p.images_per_s),
          p.images_per_s > 0 ? ratio_cell(speed_spread(c, p)) : "",
          run::mib_text(p.peak_rss_bytes),
          p.cpu_util >= 0 ? run::fmt("%.2f", p.cpu_util) : "?"};
}

// Every line that explains a row: the stand-in, a missing peer, a recipe the peer cannot
// reproduce, a failure, the spread beside a ratio, a curve without a number.
std::vector<std::string> notes(const RealComparison& c) {
  std::vector<std::string> out;
  if (!c.peer_note.empty()) out.push_back(c.framework + ": " + c.peer_note);
  if (!c.ablate_curve_problem.empty()) out.push_back(c.framework + ": no curve check: " + c.ablate_curve_problem);
  for (const auto& m : c.paths) {
    if (!m.full.completed()) {
      out.push_back(c.framework + ": " + m.title + " " + m.full.state + ": " + m.full.reason);
      continue;
    }
    if (c.ablate_measured && m.full.images_per_s > 0)
      out.push_back(c.framework + ": ratio to " + m.title + ": " + spread_text(speed_spread(c, m.full), "real"));
    if (m.interleaved.rounds > 0)
      out.push_back(c.framework + ": ratio to " + m.title + ", interleaved: " + interleaved_text(m.interleaved, "real"));
    if (c.curve_steps > 0 && c.ablate_curve_problem.empty() && !m.curve.measured())
      out.push_back(c.framework + ": " + m.title + " curve: " + m.curve.problem);
  }
  return out;
}

// The peer's title when it did not run: "Theano", "PyTorch 2.x".
std::string peer_title(const RealComparison& c) {
  if (c.peer.empty()) return "(none)";
  return real_peer(c.peer).title;
}

// ablate's row when it ran, then each real path's; a peer that did not run is one row whose
// third cell holds its state and note (the text table lets it run on).
std::vector<RowCells> rows(const RealComparison& c) {
  std::vector<RowCells> out;
  if (c.ablate_measured) out.push_back(ablate_cells(c));
  if (c.state != "compared") out.push_back({c.framework, peer_title(c), c.state + ": " + c.note});
  for (const auto& m : c.paths) out.push_back(real_cells(c, m));
  return out;
}

std::string curve_sentence(const std::vector<RealComparison>& comparisons) {
  for (const auto& c : comparisons)
    if (c.curve_steps > 0)
      return "curve: the largest relative difference of the losses over the first " + std::to_string(c.curve_steps) +
             " steps, both sides from ablate's initial weights with the random parts off (no shuffling, no dropout, "
             "the test transform)";
  return "curve: no check made (--curve-steps 0, or no real framework ran)";
}

// Where the full runs started: from ablate's initial weights (compare writes them), or each side
// from its own initialisation; the random draws (shuffling, dropout) are each side's own either way.
std::string start_sentence(const std::vector<RealComparison>& comparisons) {
  std::vector<std::string> same, own;
  for (const auto& c : comparisons)
    if (!c.paths.empty()) (c.same_start ? same : own).push_back(c.framework);
  std::string s;
  if (!same.empty())
    s = "accuracy: the real run of " + run::join(same, ", ") +
        " started from ablate's initial weights (each side its own shuffling and dropout draws)";
  if (!own.empty())
    s += (s.empty() ? "accuracy: " : "; ") + run::join(own, ", ") + ": each side from its own initialisation";
  return s;
}

const char* kLegend =
    "points: ablate's accuracy minus the real one's, in percentage points; ratio: ablate's training images/s over "
    "the real one's, with its 95% interval over the speed windows of the two runs (the notes give each side's "
    "slowest and fastest window; ~: the interval holds 1, within the windows' spread); mean CPU: cores busy (ablate over its run, the real framework over its timed steps)";

}  // namespace

std::string real_text(const std::vector<RealComparison>& comparisons) {
  const std::vector<std::size_t> w = {11, 27, 9, 7, 26, 9, 19, 9, 8};
  auto line = [&](const RowCells& cells) {
    std::string s;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const std::string& v = cells[i];
      const bool right = i >= 2 && i != 4;
      const std::string padding = v.size() < w[i] ? std::string(w[i] - v.size(), ' ') : "";
      s += (right ? padding + v : v + padding) + (i + 1 < cells.size() ? " " : "");
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s + "\n";
  };
  std::ostringstream out;
  out << "\nablate beside the real frameworks (same data, recipe and steps at the run's threads):\n";
  const std::string head = line(kHead);
  out << head << std::string(head.size() - 1, '-') << "\n";
  for (const auto& c : comparisons)
    for (const RowCells& r : rows(c)) out << line(r);
  for (const auto& c : comparisons)
    for (const std::string& n : notes(c)) out << "  " << n << "\n";
  out << curve_sentence(comparisons) << ".\n";
  if (const std::string s = start_sentence(comparisons); !s.empty()) out << s << ".\n";
  out << kLegend << ".\n";
  return out.str();
}

std::string real_markdown(const std::vector<RealComparison>& comparisons) {
  std::ostringstream out;
  out << "## ablate beside the real frameworks (--with-real)\n\n"
      << "The same model, data, recipe and number of steps in the real framework (bench/peers/), at the run's "
         "thread count; " << curve_sentence(comparisons) << ". ";
  if (const std::string s = start_sentence(comparisons); !s.empty()) out << s << ". ";
  out << kLegend << ".\n\n|";
  for (const auto& h : kHead) out << " " << h << " |";
  out << "\n|---|---|---:|---:|---|---:|---:|---:|---:|\n";
  for (const auto& c : comparisons)
    for (const RowCells& r : rows(c)) {
      out << "|";
      for (std::size_t i = 0; i < kHead.size(); ++i) out << (i < r.size() && !r[i].empty() ? " " + r[i] + " |" : " |");
      out << "\n";
    }
  out << "\n";
  bool any = false;
  for (const auto& c : comparisons)
    for (const std::string& n : notes(c)) {
      if (!any) out << "Notes:\n\n";
      any = true;
      out << "- " << n << "\n";
    }
  if (any) out << "\n";
  return out.str();
}

}  // namespace ablate::bench::experiments
