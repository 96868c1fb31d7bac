// The parts of a run's record and checks that are not the loop itself: the resolved settings,
// the memory check before training, model FLOP utilisation, and the --profile output.
#pragma once

#include <map>
#include <string>

#include "bench/run/result_record.h"
#include "bench/run/prepared_run.h"

namespace ablate::bench::run {

// What was applied: strategy, backend and version, threads, transforms, the strategy switches.
void fill_resolved(const PreparedRun& run, std::map<std::string, std::string>& resolved);
// Refuses at once a configuration whose estimated tensor memory does not fit in the memory
// available now, instead of swapping for hours (--no-memory-check trains anyway).
void check_memory(const PreparedRun& run);
// Model FLOP utilisation of the training steps (uniform training time) against the FMA
// probe's peak at the run's thread count; no peak on a device backend (a CPU probe).
void fill_mfu(const PreparedRun& run, double peak_flops, RunMetrics& metrics);
// With --profile: the Chrome trace file, and the per-op totals (slowest first) in the record.
void finish_profile(const PreparedRun& run, RunResult& result);

}  // namespace ablate::bench::run
