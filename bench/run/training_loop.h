// The training loop shared by every framework and strategy: feeds batches from the loader
// into an Engine, evaluates as the framework's recipe asks (test intervals in iterations or
// epochs, validation on a held-out split with Theano's early stopping, TF's batch accuracy),
// and measures what the study measured (training time, testing time, accuracy, CPU
// utilisation, peak memory) plus time-to-accuracy into a RunResult.
//
// Timing: every part of the run is timed apart (run_timing.h); the record carries the
// uniform figures (training = the training iterations, loader waits included, evaluations
// excluded; testing = the final pass) and each framework's own, and `--timing` picks the
// pair printed and stored as train_time_s / test_time_s.
#pragma once

#include "bench/run/result_record.h"
#include "bench/run/run_config.h"
#include "datasets/image_set.h"

namespace ablate::bench::run {

// Trains and tests one configuration on `data`; progress lines go to stdout unless quiet.
// A loss that is not finite stops the run with status "diverged".
RunResult train_and_test(RunConfig config, datasets::TrainTest data);

}  // namespace ablate::bench::run
