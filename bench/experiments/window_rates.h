// The speed within one training run, and the spread it puts around a speed ratio.
//
// `compare --with-peers` and `--with-real` divide ablate's images/s by a peer's, each side from
// one long run, one after the other, and a machine's speed moves within a run (ablate's Caffe
// preset went from 5,175 to about 2,900 images/s in one 10,000-step run on a quiet host). So
// each side also reports its speed in windows, equal runs of its timed steps: the peer script
// prints them (window_images_per_s=, bench/peers/peer_common.py StepClock), ablate's come from
// the curve points of its run (iterations done, training seconds so far). Beside the ratio goes
// its spread:
//   - a 95% percentile-bootstrap interval (bootstrap_interval.h) of
//       ratio = mean over the peer's windows of seconds per image
//             / mean over ablate's windows of seconds per image,
//     which is the overall ratio when the windows are equal, each side's windows drawn with
//     replacement on their own;
//   - each side's slowest and fastest window.
// A ratio whose interval holds 1 is within the windows' spread: the two sides are not told
// apart by this run.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bench/experiments/bootstrap_interval.h"

namespace ablate::bench::experiments {

inline constexpr int kRatioWindows = 8;  // the peers' --windows default (peer_common.py)

// images/s of up to `windows` runs of about equal steps, cut at the progress points (iterations
// done, seconds; increasing), from (0, 0). A window is cut at the last point at or before
// w * N / windows (N: the last point's iterations), so it may hold a few steps more or less;
// a window without steps or without time is left out.
std::vector<double> window_rates(const std::vector<std::pair<double, double>>& progress, std::int64_t batch,
                                 int windows = kRatioWindows);

struct RatioSpread {
  double ratio = 0;   // ablate's images/s over the peer's, over the whole runs
  Interval interval;  // ok = false: a side has fewer than 2 windows
  double ablate_low = 0, ablate_high = 0, peer_low = 0, peer_high = 0;  // images/s per window
  std::size_t ablate_windows = 0, peer_windows = 0;
  bool within_spread() const { return interval.covers(1.0); }
};

RatioSpread ratio_spread(double ablate_images_per_s, double peer_images_per_s, const std::vector<double>& ablate_windows,
                         const std::vector<double>& peer_windows);

// "95% [1.52, 1.98] over 8 and 8 windows; per window ablate 2900-5175, PEER 3700-3800 images/s"
// with "; within the windows' spread" when the interval holds 1, or "no spread: PEER reported
// no windows" (or ablate) when a side has fewer than two.
std::string spread_text(const RatioSpread& s, const std::string& peer);

// The ratio's cell: "1.24 [1.10, 1.40]", "1.02 [0.91, 1.12] ~" within the spread, "1.24" alone
// without an interval.
std::string ratio_cell(const RatioSpread& s);

}  // namespace ablate::bench::experiments
