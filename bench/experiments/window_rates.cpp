// Speed windows of a run and the spread of a speed ratio (window_rates.h).
#include "bench/experiments/window_rates.h"

#include <algorithm>

#include "bench/run/text_format.h"

namespace ablate::bench::experiments {

std::vector<double> window_rates(const std::vector<std::pair<double, double>>& progress, std::int64_t batch, int windows) {
  std::vector<double> rates;
  if (progress.empty() || windows < 1) return rates;
  const double total = progress.back().first;
  double done = 0, seconds = 0;
  std::size_t next = 0;
  for (int w = 1; w <= windows; ++w) {
    const double end = total * w / windows;
    std::size_t cut = next;
    while (cut + 1 < progress.size() && progress[cut + 1].first <= end) ++cut;
    if (cut >= progress.size() || progress[cut].first > end) continue;
    const auto [steps_done, seconds_then] = progress[cut];
    if (steps_done > done && seconds_then > seconds)
      rates.push_back((steps_done - done) * static_cast<double>(batch) / (seconds_then - seconds));
    if (steps_done > done) done = steps_done, seconds = seconds_then;
    next = cut + 1;
  }
  return rates;
}

RatioSpread ratio_spread(double ablate_images_per_s, double peer_images_per_s, const std::vector<double>& ablate_windows,
                         const std::vector<double>& peer_windows) {
  RatioSpread s;
  s.ratio = peer_images_per_s > 0 ? ablate_images_per_s / peer_images_per_s : 0;
  s.ablate_windows = ablate_windows.size();
  s.peer_windows = peer_windows.size();
  if (!ablate_windows.empty()) {
    s.ablate_low = *std::min_element(ablate_windows.begin(), ablate_windows.end());
    s.ablate_high = *std::max_element(ablate_windows.begin(), ablate_windows.end());
  }
  if (!peer_windows.empty()) {
    s.peer_low = *std::min_element(peer_windows.begin(), peer_windows.end());
    s.peer_high = *std::max_element(peer_windows.begin(), peer_windows.end());
  }
  if (ablate_windows.size() < 2 || peer_windows.size() < 2 || s.ablate_low <= 0 || s.peer_low <= 0) return s;
  Cells seconds_per_image(2);  // [0]: ablate, [1]: the peer
  for (double r : ablate_windows) seconds_per_image[0].push_back(1 / r);
  for (double r : peer_windows) seconds_per_image[1].push_back(1 / r);
  s.interval = bootstrap_intervals(seconds_per_image, [](const std::vector<double>& m) {
                 return std::vector<double>{m[1] / m[0]};
               })[0];
  return s;
}

std::string spread_text(const RatioSpread& s, const std::string& peer) {
  if (!s.interval.ok) {
    const bool ablate_short = s.ablate_windows < 2;
    const std::size_t n = ablate_short ? s.ablate_windows : s.peer_windows;
    return "no spread: " + (ablate_short ? std::string("ablate") : peer) + " reported " + std::to_string(n) +
           " speed window" + (n == 1 ? "" : "s");
  }
  return "95% [" + run::fmt("%.2f", s.interval.low) + ", " + run::fmt("%.2f", s.interval.high) + "] over " +
         std::to_string(s.ablate_windows) + " and " + std::to_string(s.peer_windows) + " windows; per window ablate " +
         run::fmt("%.0f", s.ablate_low) + "-" + run::fmt("%.0f", s.ablate_high) + ", " + peer + " " +
         run::fmt("%.0f", s.peer_low) + "-" + run::fmt("%.0f", s.peer_high) + " images/s" +
         (s.within_spread() ? "; within the windows' spread" : "");
}

std::string ratio_cell(const RatioSpread& s) {
  std::string cell = run::fmt("%.2f", s.ratio);
  if (s.interval.ok)
    cell += " [" + run::fmt("%.2f", s.interval.low) + ", " + run::fmt("%.2f", s.interval.high) + "]" +
            (s.within_spread() ? " ~" : "");
  return cell;
}

}  // namespace ablate::bench::experiments
