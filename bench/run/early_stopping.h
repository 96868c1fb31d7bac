// Theano's early stopping, as the deeplearning.net LeNet5 tutorial (convolutional_mlp.py)
// runs it. With `iter` the 0-based index of the iteration just trained:
//
//   after a validation pass:  if error < best:
//                                 if error < best * improvement_threshold:
//                                     patience = max(patience, iter * patience_increase)
//                                 best = error; best_iter = iter; (the loop then tests)
//   after every iteration:    if patience <= iter: stop
//
// Patience 0 switches stopping off; the best validation error is still tracked.
#pragma once

#include <cstdint>
#include <limits>

namespace ablate::bench::run {

struct EarlyStoppingRule {
  std::int64_t patience = 0;          // iterations; 0: no early stopping
  double patience_increase = 2;
  double improvement_threshold = 0.995;
};

class EarlyStopping {
 public:
  explicit EarlyStopping(EarlyStoppingRule rule) : rule_(rule), patience_(static_cast<double>(rule.patience)) {}

  bool enabled() const { return rule_.patience > 0; }
  // A validation pass after iteration `iter` (0-based) measured `error`; true if it is a new best.
  bool validated(std::int64_t iter, double error);
  // True when training must stop after iteration `iter` (0-based).
  bool should_stop(std::int64_t iter) const { return enabled() && patience_ <= static_cast<double>(iter); }

  bool has_best() const { return best_iteration_ >= 0; }
  double best_error() const { return best_error_; }
  std::int64_t best_iteration() const { return best_iteration_; }  // 0-based; -1 before any validation
  double patience() const { return patience_; }
  // A resumed run's state, as a snapshot saved it.
  void restore(double patience, double best_error, std::int64_t best_iteration) {
    patience_ = patience;
    best_error_ = best_error;
    best_iteration_ = best_iteration;
  }

 private:
  EarlyStoppingRule rule_;
  double patience_;
  double best_error_ = std::numeric_limits<double>::infinity();
  std::int64_t best_iteration_ = -1;
};

}  // namespace ablate::bench::run
