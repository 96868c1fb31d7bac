// Text and Markdown of the PyTorch comparison.
#include "bench/experiments/peer_table.h"
#include "bench/experiments/window_rates.h"
#include "bench/run/text_format.h"

#include <cstdio>
#include <sstream>

namespace ablate::bench::experiments {

namespace {

std::string thr(int threads) { return std::to_string(threads) + " thr"; }

// The state of a model's PyTorch side when there is no number: "not comparable (...)".
std::string missing_peer(const PeerComparison& c) {
  if (!c.note.empty()) return "peer: not run (" + c.note + ")";
  for (const auto& m : c.peers)
    if (m.state == "not comparable") return "peer: not comparable (" + m.reason + ")";
  for (const auto& m : c.peers)
    if (m.state == "failed") return "peer: failed (" + m.reason + ")";
  return "peer: not run (no PyTorch thread count)";
}

// " (blas mkl, oneDNN 3.13.3)": what the peer's torch computes with, when its line says.
std::string libraries(const PeerMeasure& m) {
  std::string text;
  if (!m.blas.empty()) text += "blas " + m.blas;
  if (!m.onednn.empty()) text += (text.empty() ? "" : ", ") + std::string("oneDNN ") + m.onednn;
  return text.empty() ? "" : " (" + text + ")";
}

}  // namespace

const PeerMeasure* fastest_peer(const PeerComparison& c) {
  const PeerMeasure* best = nullptr;
  for (const auto& m : c.peers)
    if (m.completed() && (!best || m.images_per_s > best->images_per_s)) best = &m;
  return best;
}

std::string peer_ratio_line(const PeerComparison& c) {
  const PeerMeasure* p = fastest_peer(c);
  if (!c.ablate_measured || !p) return c.model + ": " + missing_peer(c);
  const AblateMeasure& a = c.ablate;
  const RatioSpread spread = ratio_spread(a.images_per_s, p->images_per_s, a.window_images_per_s, p->window_images_per_s);
  return c.model + ": ratio ablate/pytorch images/s " + run::fmt("%.2f", spread.ratio) + " (" +
         spread_text(spread, "pytorch") + ") (ablate " + a.backend + " " + thr(a.threads) + " " + run::fmt("%.0f", a.images_per_s) + " vs pytorch " +
         thr(p->threads) + " " + run::fmt("%.0f", p->images_per_s) + "); accuracy " + run::fmt("%.4f", a.accuracy) +
         " vs " + run::fmt("%.4f", p->accuracy) + " (difference " + run::fmt("%.2f", 100 * (a.accuracy - p->accuracy)) +
         " points)";
}

std::string peer_text(const PeerComparison& c) {
  std::ostringstream out;
  const std::string head = c.model + " (" + c.framework + "): ";
  if (c.ablate_measured)
    out << head << "ablate  " << c.ablate.backend << " " << thr(c.ablate.threads) << ": "
        << run::fmt("%.0f", c.ablate.images_per_s) << " images/s, accuracy " << run::fmt("%.4f", c.ablate.accuracy)
        << ", peak RSS " << run::mib_text(c.ablate.peak_rss_bytes) << ", " << c.ablate.iterations << " steps\n";
  for (const auto& m : c.peers) {
    if (!m.completed()) continue;
    out << head << "pytorch " << m.version << libraries(m) << " " << thr(m.threads) << ": " << run::fmt("%.0f", m.images_per_s)
        << " images/s, accuracy " << run::fmt("%.4f", m.accuracy) << ", peak RSS " << run::mib_text(m.peak_rss_bytes) << ", "
        << m.iterations << " steps\n";
  }
  out << peer_ratio_line(c) << "\n";
  return out.str();
}

std::string peer_markdown(const std::vector<PeerComparison>& comparisons, const std::string& environment,
                          const std::string& python) {
  std::ostringstream out;
  out << "## PyTorch yardstick (--with-peers)\n\n"
      << "The same model, data, recipe and number of steps in PyTorch (bench/peers/pytorch_train.py, "
      << "run by `" << python << "`, environment: `" << environment << "`); images/s of the training steps (PyTorch: after its warm-up steps), "
      << "accuracy on the same test images, peak RSS of the process.\n\n"
      << "| model | framework | side | threads | images/s | accuracy | peak RSS |\n|---|---|---|---:|---:|---:|---:|\n";
  for (const auto& c : comparisons) {
    if (c.ablate_measured)
      out << "| " << c.model << " | " << c.framework << " | ablate " << c.ablate.backend << " | " << c.ablate.threads
          << " | " << run::fmt("%.0f", c.ablate.images_per_s) << " | " << run::fmt("%.4f", c.ablate.accuracy) << " | "
          << run::mib_text(c.ablate.peak_rss_bytes) << " |\n";
    for (const auto& m : c.peers)
      if (m.completed())
        out << "| " << c.model << " | " << c.framework << " | pytorch " << m.version << libraries(m) << " | " << m.threads << " | "
            << run::fmt("%.0f", m.images_per_s) << " | " << run::fmt("%.4f", m.accuracy) << " | " << run::mib_text(m.peak_rss_bytes)
            << " |\n";
  }
  out << "\n";
  for (const auto& c : comparisons) out << "- " << peer_ratio_line(c) << "\n";
  out << "\n";
  return out.str();
}

}  // namespace ablate::bench::experiments
