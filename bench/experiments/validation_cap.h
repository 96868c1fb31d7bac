// Data sets smaller than a preset expects (`ablate sweep`, `ablate compare`): a validation
// split (Theano 10,000, TF 5,000 images) that would leave fewer than 5/6 of the training
// images is capped at 1/6 of them, and the run's note says so. Without the cap Theano's row
// fails on the 6,000-image synthetic set or an 8,000-image MNIST-format folder.
#pragma once

#include <cstdint>
#include <string>

#include "bench/run/run_config.h"
#include "datasets/image_set.h"

namespace ablate::bench::experiments {

// The validation count a run may hold out of `train_count` images; sets `note` when capped:
// "validation_count capped from 10000 to 1000 (1/6 of the 6000 training images)".
std::int64_t capped_validation(std::int64_t validation_count, std::int64_t train_count, std::string& note);
// The same on a configuration once its data set is loaded (a RunHooks::fit_to_data).
void cap_validation(run::RunConfig& config, const datasets::TrainTest& data, std::string& note);

}  // namespace ablate::bench::experiments
