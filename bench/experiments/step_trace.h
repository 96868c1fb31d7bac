// The explained step as one Chrome/Perfetto trace (ui.perfetto.dev, chrome://tracing): a
// process per strategy, named after it, holding a "step" span and one span per Backend op
// (named after the op; args: phase, layer, entry, FLOPs, bytes written, checksum), and two
// counter tracks: "live tensor bytes" after every op, and "peak tensor bytes", the host
// allocator's running peak, whose last value is the step's peak_tensor_bytes (step.json).
#pragma once

#include <string>

#include "bench/experiments/step_explanation.h"

namespace ablate::bench::experiments {

std::string step_trace_json(const Explanation& explanation);

}  // namespace ablate::bench::experiments
