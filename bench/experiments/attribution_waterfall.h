// The account of a speed difference as a waterfall (`ablate compare --with-real --attribute`):
// the real framework's training time for the comparison's steps; ablate's with the framework's
// own factors; then ablate's after each factor in turn is switched to ablate's fastest choice
// (cumulatively: step k keeps the switches before it). The arithmetic, with T_real, T_0 (the
// framework's own factors) and T_k (after the k-th switch), every time a median over rounds:
//   gap         = T_0 - T_real                        (what ablate's reproduction costs more)
//   change_k    = T_{k-1} - T_k                       (what switching factor k saves)
//   share_k     = change_k / gap                      (the part of the gap factor k explains)
//   left        = T_last - T_real,  left / gap        (what no factor explains)
// so the changes and what is left add up to the gap (the shares and left / gap to 1). A
// negative share: the switch widened the gap.
// A factor not switched (already ablate's fastest; not used by the strategy now in force)
// has a line with its reason and no change.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ablate::bench::experiments {

struct WaterfallStep {
  std::string factor;     // "backend"
  std::string from, to;   // "eigen", "onednn"
  bool switched = false;  // false: `note` says why not
  std::string note;       // "already ablate's fastest (openblas, onednn measured slower)"
  double seconds = 0;     // T_k, when switched
};

struct Waterfall {
  std::string framework, dataset;
  std::string real_title;  // "TensorFlow 2.21.0 (eigen)"
  std::int64_t steps = 0, batch = 0;
  int rounds = 0;
  double real_s = 0;       // T_real
  double ablate_s = 0;     // T_0
  std::vector<WaterfallStep> steps_taken;
  std::vector<std::pair<std::string, double>> other_real;  // other paths of the real framework (TF oneDNN), seconds
  std::string problem;     // "" or why there is no account (the real framework could not run)
};

struct WaterfallAccount {
  double gap_s = 0;
  std::vector<double> change_s, share;  // per step; 0 for a step not switched
  double left_s = 0, left_share = 0;
};
WaterfallAccount account(const Waterfall& w);

std::string waterfall_text(const Waterfall& w);
std::string waterfall_markdown(const Waterfall& w);

}  // namespace ablate::bench::experiments
