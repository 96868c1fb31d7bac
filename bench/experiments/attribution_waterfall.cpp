// The waterfall's arithmetic and its tables (attribution_waterfall.h).
#include "bench/experiments/attribution_waterfall.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "bench/run/text_format.h"

namespace ablate::bench::experiments {

namespace {

struct Line {
  std::string label, seconds, change, share;
};

std::string share_text(const WaterfallAccount& a, double share) { return a.has_shares ? run::fmt("%.0f%%", 100 * share) : "-"; }

std::vector<Line> lines(const Waterfall& w) {
  const WaterfallAccount a = account(w);
  std::vector<Line> out;
  out.push_back({"real " + w.real_title, run::fmt("%.2f", w.real_s), "", ""});
  for (const auto& [title, s] : w.other_real) out.push_back({"  (also: real " + title + ")", run::fmt("%.2f", s), "", ""});
  out.push_back({"ablate with " + w.framework + "'s own factors (left unexplained)", run::fmt("%.2f", w.ablate_s),
                 run::fmt("%+.2f", a.left_s), share_text(a, a.left_share)});
  for (std::size_t i = 0; i < w.steps_taken.size(); ++i) {
    const WaterfallStep& s = w.steps_taken[i];
    if (s.switched)
      out.push_back({"+ " + s.factor + " " + s.from + " -> " + s.to, run::fmt("%.2f", s.seconds),
                     run::fmt("%+.2f", a.change_s[i]), share_text(a, a.share[i])});
    else
      out.push_back({"  " + s.factor + " " + s.from + ": " + s.note, "", "", ""});
  }
  out.push_back({"gap: ablate's fastest - real", "", run::fmt("%+.2f", a.gap_s), a.has_shares ? "100%" : "-"});
  return out;
}

std::string heading(const Waterfall& w) {
  return "The account of the difference: " + w.framework + " on " + w.dataset + ", " + std::to_string(w.steps) +
         " steps of batch " + std::to_string(w.batch) + "; training seconds (medians of " + std::to_string(w.rounds) +
         " interleaved rounds, each side's images/s over those steps)";
}

}  // namespace

WaterfallAccount account(const Waterfall& w) {
  WaterfallAccount a;
  double previous = w.ablate_s;
  for (const WaterfallStep& s : w.steps_taken) {
    a.change_s.push_back(s.switched ? s.seconds - previous : 0);
    if (s.switched) previous = s.seconds;
  }
  a.gap_s = previous - w.real_s;
  a.left_s = w.ablate_s - w.real_s;
  a.has_shares = std::abs(a.gap_s) > 0.02 * std::abs(w.real_s) && a.gap_s != 0;
  for (double c : a.change_s) a.share.push_back(a.has_shares ? c / a.gap_s : 0);
  a.left_share = a.has_shares ? a.left_s / a.gap_s : 0;
  return a;
}

std::string waterfall_text(const Waterfall& w) {
  std::ostringstream out;
  out << "\n" << heading(w) << ":\n";
  if (!w.problem.empty()) return out.str() + "  no account: " + w.problem + "\n";
  std::size_t width = 0;
  const std::vector<Line> ls = lines(w);
  for (const Line& l : ls)
    if (!l.seconds.empty() || !l.change.empty()) width = std::max(width, l.label.size());  // a note runs on
  auto pad = [](const std::string& s, std::size_t n, bool right) {
    const std::string p = s.size() < n ? std::string(n - s.size(), ' ') : "";
    return right ? p + s : s + p;
  };
  out << pad("", width, false) << "  " << pad("train s", 9, true) << "  " << pad("change s", 9, true) << "  "
      << pad("share", 8, true) << "\n";
  for (const Line& l : ls) {
    std::string row = pad(l.label, width, false) + "  " + pad(l.seconds, 9, true) + "  " + pad(l.change, 9, true) + "  " +
                      pad(l.share, 8, true);
    while (!row.empty() && row.back() == ' ') row.pop_back();
    out << row << "\n";
  }
  out << "change: the line's training time minus the line before (left unexplained: ablate with " << w.framework
      << "'s own factors minus real); gap: ablate at its fastest minus real, the sum of the changes; share: each "
         "change's part of the gap (they add up to 100%; none when the gap is within 2% of real).\n";
  for (const std::string& f : w.failed_samples) out << "failed sample: " << f << "\n";
  return out.str();
}

std::string waterfall_markdown(const Waterfall& w) {
  std::ostringstream out;
  out << "## " << heading(w) << "\n\n";
  if (!w.problem.empty()) return out.str() + "No account: " + w.problem + "\n\n";
  out << "| step | training s | change s | share of the gap |\n|---|---:|---:|---:|\n";
  for (const Line& l : lines(w)) out << "| " << l.label << " | " << l.seconds << " | " << l.change << " | " << l.share << " |\n";
  out << "\nChange: the line's training time minus the line before; the first (left unexplained) is ablate with "
      << w.framework << "'s own factors minus the real framework, what no factor of ablate's accounts for. Gap: ablate at "
         "its fastest minus the real framework, the sum of the changes. Share: each change's part of the gap (they add up "
         "to 100%; none when the gap is within 2% of real). Each switch keeps the ones before it.\n\n";
  for (const std::string& f : w.failed_samples) out << "- FAILED sample: " << f << "\n";
  return out.str();
}

}  // namespace ablate::bench::experiments
