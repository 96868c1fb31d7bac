// The measurements of one benchmark command that other processes disturbed: `ablate
// bench` adds each configuration of each round, `ablate compare` each framework's run, with what
// others took meanwhile (cpu_disturbance.h); the lines after the table name those above the
// threshold, so a figure measured while a neighbour held a core is not taken for the framework's.
#pragma once

#include <string>
#include <vector>

#include "bench/run/cpu_disturbance.h"

namespace ablate::bench::run {

class DisturbanceLog {
 public:
  explicit DisturbanceLog(double threshold) : threshold_(threshold) {}
  // One measurement, named for the output ("openblas 2 thr round 3", "caffe").
  void add(const std::string& what, const Disturbance& d);
  // How many were above the threshold.
  int disturbed() const;
  // "disturbed (others above 0.25 cores): 2 of 10 measurements: openblas 2 thr round 2 (others
  // 0.93 cores, steal 0.00), ...", or "no measurement disturbed: others used at most 0.12 cores
  // (threshold 0.25), steal at most 0.00"; one line.
  std::string summary() const;

 private:
  struct Entry {
    std::string what;
    Disturbance d;
  };
  double threshold_;
  std::vector<Entry> entries_;
};

// Runs a measurement and adds what others took meanwhile to `log`; returns the measurement's value.
template <typename Measure>
auto measured_with(DisturbanceLog& log, const std::string& what, Measure&& measure) {
  const CpuCounters before = read_cpu_counters();
  auto value = measure();
  log.add(what, disturbance_between(before, read_cpu_counters()));
  return value;
}

}  // namespace ablate::bench::run
