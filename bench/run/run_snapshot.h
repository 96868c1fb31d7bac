// Snapshots of a run (exact resume): the checkpoint file (graph/checkpoint_file.h) of a training
// run holds, besides the engine's state (graph/engine_checkpoint.h), the run's own state as
// metadata text: the configuration that must match on resume, the iteration, the loss curve
// so far, the timed parts, the evaluation state (early stopping, time-to-accuracy, last test).
// Doubles are written with 17 significant digits, so a resumed run continues bit for bit.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "bench/run/result_record.h"
#include "bench/run/run_config.h"

namespace ablate::bench::run {

// The factors that must be equal for a snapshot to continue a run, as "key value" lines.
std::string snapshot_fingerprint(const RunConfig& config);
// Throws std::invalid_argument naming the snapshot, each differing factor and both values.
void check_fingerprint(const std::string& saved, const RunConfig& config, const std::string& snapshot);

std::string encode_curve(const std::vector<CurvePoint>& curve);
std::vector<CurvePoint> decode_curve(const std::string& text, const std::string& snapshot);

// Typed metadata fields.
std::string exact(double v);  // the shortest form that reads back exactly: 0.05, not 0.050000000000000003
double meta_double(const std::map<std::string, std::string>& meta, const std::string& key, const std::string& snapshot);
std::int64_t meta_int(const std::map<std::string, std::string>& meta, const std::string& key, const std::string& snapshot);

// Stops at a step boundary on SIGINT or SIGTERM: the first signal sets a flag the training loop
// reads after each step (it then writes a snapshot and an "interrupted" record); a second
// signal ends the process at once (exit status 128 + signal).
void install_stop_handlers();
int stop_signal();  // 0 until SIGINT or SIGTERM arrived
void clear_stop_signal();  // for tests

}  // namespace ablate::bench::run
