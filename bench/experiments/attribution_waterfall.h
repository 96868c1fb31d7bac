// The greedy account (`--attribute-method greedy`, attribution.h) of a speed difference as a waterfall (`ablate compare --with-real --attribute`):
// the real framework's training time for the comparison's steps; ablate's with the framework's
// own factors; then ablate's after each factor in turn is switched to ablate's fastest choice
// (cumulatively: step k keeps the switches before it). The arithmetic, with T_real, T_0 (the
// framework's own factors) and T_k (after the k-th switch; T_last after the last), every time a
// median over rounds:
//   gap         = T_last - T_real       (ablate at its fastest against the real framework: the
//                                        difference to account for)
//   left        = T_0 - T_real          (what ablate with the framework's own factors still
//                                        differs by: what no factor of ablate's explains)
//   change_k    = T_k - T_{k-1}         (what switching factor k changes; negative: faster)
//   share       = part / gap            (for left and each change_k)
// so left and the changes add up to the gap (the shares to 1). Example, Theano: real 212 s,
// ablate with Theano's own factors 147 s (left -66 s), f64 -> f32 -45 s, ...: gap -131 s.
// A gap within 2% of T_real has no shares (they would only magnify noise).
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
  std::vector<std::string> failed_samples;  // measurements with a failed round (their medians count it)
};

struct WaterfallAccount {
  double gap_s = 0;
  std::vector<double> change_s, share;  // per step; 0 for a step not switched
  double left_s = 0, left_share = 0;
  bool has_shares = false;  // the gap is more than 2% of the real time
};
WaterfallAccount account(const Waterfall& w);

std::string waterfall_text(const Waterfall& w);
std::string waterfall_markdown(const Waterfall& w);

}  // namespace ablate::bench::experiments
