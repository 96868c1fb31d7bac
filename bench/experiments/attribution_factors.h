// The factors `ablate compare --with-real --attribute` switches one at a time, from a
// framework's own choice to ablate's fastest, as data: each is a run flag,
// the values ablate may switch it to (the fastest of them is measured, not assumed), and how to
// read the value a resolved configuration has. To account for a new factor (a convolution
// lowering, a pooling rule), add its run flag here; the order is the waterfall's.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "bench/run/run_config.h"

namespace ablate::bench::experiments {

struct AttributionFactor {
  std::string name;                  // "backend", as the waterfall names it
  std::string flag;                  // the run flag without dashes that sets it
  std::vector<std::string> choices;  // values to measure (a choice equal to the framework's is skipped)
  std::function<std::string(const run::RunConfig&)> value;  // the value a resolved configuration has
};

// strategy, backend, threads, conv lowering, threading, precision, passes, executor, allocator, plan, malloc; a
// factor whose flag is not a run flag of this build is left out.
std::vector<AttributionFactor> attribution_factors();

// One factor of --attribute-factors: NAME, or NAME=VALUE to switch it to VALUE instead of its
// fastest value (empty: to be chosen by measurement).
struct FactorRequest {
  AttributionFactor factor;
  std::string value;
};

}  // namespace ablate::bench::experiments
