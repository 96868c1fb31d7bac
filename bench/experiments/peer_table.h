// The lines `ablate compare --with-peers` prints per model, and the report's section: ablate's
// images/s, accuracy and peak RSS, PyTorch's at each thread count, and the ratio line
//   lenet: ratio ablate/pytorch images/s 1.75 (95% [1.52, 1.98] over 8 and 8 windows; per window
//          ablate 5120-6900, pytorch 3600-3800 images/s) (ablate openblas 2 thr 6553 vs pytorch
//          1 thr 3744); accuracy 0.8812 vs 0.8790 (difference 0.22 points)          (one line)
// comparing each side at its faster thread count (ablate's side has one: the run's), with the
// spread of the speed within each run beside the ratio (window_rates.h). A recipe
// PyTorch cannot reproduce prints `peer: not comparable (<reason>)`, never a number.
#pragma once

#include <string>
#include <vector>

#include "bench/experiments/peer_runner.h"

namespace ablate::bench::experiments {

// The fastest completed PyTorch measure, or nullptr.
const PeerMeasure* fastest_peer(const PeerComparison& c);
// The ratio line (or the line saying why there is none) of one model.
std::string peer_ratio_line(const PeerComparison& c);
// Every line of one model: ablate's figures, each PyTorch run, the ratio line.
std::string peer_text(const PeerComparison& c);
// The report's section for all models, naming the interpreter that ran PyTorch and its environment.
std::string peer_markdown(const std::vector<PeerComparison>& comparisons, const std::string& environment,
                          const std::string& python = "/usr/bin/python3");

}  // namespace ablate::bench::experiments
