// Theano's patience loop (see early_stopping.h).
#include "bench/run/early_stopping.h"

#include <algorithm>

namespace ablate::bench::run {

bool EarlyStopping::validated(std::int64_t iter, double error) {
  if (!(error < best_error_)) return false;
  if (error < best_error_ * rule_.improvement_threshold)
    patience_ = std::max(patience_, static_cast<double>(iter) * rule_.patience_increase);
  best_error_ = error;
  best_iteration_ = iter;
  return true;
}

}  // namespace ablate::bench::run
