// The evaluation schedule of a run (see evaluation_schedule.h).
#include "bench/run/evaluation_schedule.h"

#include <cmath>

namespace ablate::bench::run {

namespace {
// Whole periods of `period_images` completed after `done` iterations of `batch` images.
std::int64_t periods(std::int64_t done, std::int64_t batch, double period_images) {
  return static_cast<std::int64_t>(std::floor(static_cast<double>(done * batch) / period_images + 1e-9));
}
}  // namespace

EvaluationSchedule EvaluationSchedule::of(const RunConfig& c, std::int64_t train_count) {
  EvaluationSchedule s;
  s.test_interval = c.test_interval;
  s.test_interval_epochs = c.test_interval_epochs;
  s.validation_interval = c.validation_interval;
  s.train_accuracy_interval = c.train_accuracy_interval;
  s.batch = c.batch;
  s.train_count = train_count;
  return s;
}

bool EvaluationSchedule::test_due(std::int64_t done) const {
  if (done <= 0) return false;
  if (test_interval_epochs > 0) {
    double period = test_interval_epochs * static_cast<double>(train_count);
    return periods(done, batch, period) > periods(done - 1, batch, period);
  }
  return test_interval > 0 && done % test_interval == 0;
}

bool EvaluationSchedule::validation_due(std::int64_t done) const {
  return validation_interval > 0 && done > 0 && done % validation_interval == 0;
}

bool EvaluationSchedule::batch_accuracy_due(std::int64_t iteration) const {
  return train_accuracy_interval > 0 && iteration % train_accuracy_interval == 0;
}

std::int64_t EvaluationSchedule::tests_in(std::int64_t iterations) const {
  if (test_interval_epochs > 0) return periods(iterations, batch, test_interval_epochs * static_cast<double>(train_count));
  return test_interval > 0 ? iterations / test_interval : 0;
}

}  // namespace ablate::bench::run
