// The cap of a validation split on a small data set (validation_cap.h).
#include "bench/experiments/validation_cap.h"

namespace ablate::bench::experiments {

std::int64_t capped_validation(std::int64_t validation_count, std::int64_t train_count, std::string& note) {
  const std::int64_t cap = train_count / 6;
  if (validation_count <= cap) return validation_count;
  note = "validation_count capped from " + std::to_string(validation_count) + " to " + std::to_string(cap) +
         " (1/6 of the " + std::to_string(train_count) + " training images)";
  return cap;
}

void cap_validation(run::RunConfig& config, const datasets::TrainTest& data, std::string& note) {
  config.validation_count = capped_validation(config.validation_count, data.train.count(), note);
}

}  // namespace ablate::bench::experiments
