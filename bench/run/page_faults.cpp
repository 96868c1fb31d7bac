// Page-fault counters of the training steps (page_faults.h).
#include "bench/run/page_faults.h"

#include <sys/resource.h>

#include <algorithm>

#include "bench/run/median.h"

namespace ablate::bench::run {

FaultCount process_faults() {
  rusage u{};
  if (::getrusage(RUSAGE_SELF, &u) != 0) return {};
  return {static_cast<std::int64_t>(u.ru_minflt), static_cast<std::int64_t>(u.ru_majflt)};
}

void StepFaults::begin() {
  current_ = {};
  resume();
}

void StepFaults::pause() {
  const FaultCount now = process_faults();
  current_.minor += now.minor - mark_.minor;
  current_.major += now.major - mark_.major;
}

void StepFaults::end() {
  pause();
  if (steps_ == 0)
    first_minor_ = current_.minor;
  else
    later_minor_.push_back(current_.minor);
  minor_ += current_.minor;
  major_ += current_.major;
  ++steps_;
}

double StepFaults::minor_per_step() const {
  if (steps_ < 2) return 0;
  return static_cast<double>(minor_ - first_minor_) / static_cast<double>(steps_ - 1);
}

double StepFaults::median_minor_per_step() const {
  if (later_minor_.empty()) return 0;
  return median(std::vector<double>(later_minor_.begin(), later_minor_.end()));
}

}  // namespace ablate::bench::run
